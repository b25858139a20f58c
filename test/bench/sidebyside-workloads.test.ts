import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StartedKubelet } from '../../bench/sidebyside-kubelets.js';
import { scheduledWorkloads } from '../../bench/sidebyside-workloads.js';
import { FakeCri } from '../fakes/fake-cri.js';
import { fakeLab } from '../support/fake-lab.js';

const NODE = 'sbs-test-1';
const NS = 'sbs-test-1';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const kubelet: StartedKubelet = { pid: 0, t0: 0, healthzPort: 0, port: 0, exitCode: () => null, stderrTail: () => '', stop: async () => undefined, runsJavaScript: false };
const pod = (name: string, labels: Record<string, string>, nodeName: string, phase: string) => ({ metadata: { name, uid: name, labels }, spec: { nodeName }, status: { phase } });

/** A web pod in the runtime, its sandbox ready and its container running, having written `line`. */
async function webPodInRuntime(cri: FakeCri, line: string): Promise<string> {
  const logs = mkdtempSync(join(tmpdir(), 'kts-sbs-workloads-'));
  cleanups.push(() => rmSync(logs, { recursive: true, force: true }));
  const labels = { 'io.kubernetes.pod.name': 'web-1', 'io.kubernetes.pod.namespace': NS };
  const sandboxConfig = { metadata: { name: 'web-1', uid: 'web-1', namespace: NS, attempt: 0 }, labels, log_directory: logs };
  cri.addImage('busybox');
  const sandbox = await cri.runtime.runPodSandbox(sandboxConfig);
  const container = await cri.runtime.createContainer(sandbox, { metadata: { name: 'main', attempt: 0 }, image: { image: 'busybox' }, labels, log_path: 'main/0.log' }, sandboxConfig);
  await cri.runtime.startContainer(container);
  mkdirSync(join(logs, 'main'));
  writeFileSync(join(logs, 'main', '0.log'), `2026-11-26T00:00:00.000000000Z stdout F ${line}\n`);
  return sandbox;
}

describe('the side-by-side bench\'s scheduled workloads', () => {
  it('records each check passed or failed with its reason, goes on after a failure, and deletes the objects', async () => {
    const cri = new FakeCri();
    const sandbox = await webPodInRuntime(cri, 'host=10.96.0.1 port=6443');
    let webGone = false;
    const asked: string[] = [];
    const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const lab = await fakeLab((url, res, req) => {
      asked.push(`${req.method} ${url}`);
      if (req.method === 'POST') return json(res, 201, {});
      if (req.method === 'DELETE') {
        if (url.endsWith('/deployments/web') && !webGone) {
          webGone = true;
          void cri.runtime.stopPodSandbox(sandbox);
        }
        return json(res, 200, {});
      }
      if (url.endsWith('/deployments/web')) return json(res, 200, { status: { availableReplicas: 3 } });
      if (url.endsWith('/daemonsets/agent')) return json(res, 200, { status: { numberReady: 1 } });
      if (url.endsWith('/jobs/once')) return json(res, 200, { status: { conditions: [{ type: 'Complete', status: 'True' }] } });
      const web = webGone ? [] : [1, 2, 3].map((i) => pod(`web-${i}`, { app: 'web' }, NODE, 'Running'));
      // The DaemonSet's pod where this node's kubelet never sees it.
      const agent = [pod('agent-1', { app: 'agent' }, 'elsewhere', 'Running')];
      const once = [pod('once-1', { 'job-name': 'once' }, NODE, 'Succeeded')];
      const items = url.includes('app%3Dweb') ? web : url.includes('app%3Dagent') ? agent : [...web, ...agent, ...once];
      return json(res, 200, { items });
    });
    cleanups.push(lab.close);

    const results = await scheduledWorkloads({ lab, node: NODE, namespace: NS, image: 'busybox', cri }, kubelet);

    const outcome = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, [v.ok, v.reason]]));
    expect(outcome).toEqual({
      'Deployment 3/3 available': [true, undefined],
      'DaemonSet 1/1 ready': [false, `agent's pods [node, phase]: [["elsewhere","Running"]], not [["${NODE}","Running"]]`],
      'Job complete': [true, undefined],
      'log: host=10.96.0.1 port=443': [false, 'a web pod wrote "host=10.96.0.1 port=6443", not "host=10.96.0.1 port=443"'],
      'deleted → web pods off the API': [true, undefined],
      'deleted → none running in CRI': [true, undefined],
    });
    expect(Object.values(results).every((c) => c.ms >= 0)).toBe(true);
    // The three objects POSTed to the turn's namespace, and none left behind.
    expect(asked.filter((a) => a.startsWith('POST'))).toEqual([
      `POST /apis/apps/v1/namespaces/${NS}/deployments`, `POST /apis/apps/v1/namespaces/${NS}/daemonsets`, `POST /apis/batch/v1/namespaces/${NS}/jobs`,
    ]);
    expect(asked.filter((a) => a.startsWith('DELETE')).slice(-3)).toEqual([
      `DELETE /apis/apps/v1/namespaces/${NS}/deployments/web`, `DELETE /apis/apps/v1/namespaces/${NS}/daemonsets/agent`, `DELETE /apis/batch/v1/namespaces/${NS}/jobs/once`,
    ]);
  }, 30_000);

  it('fails every check with the reason, without throwing, when the objects cannot be created', async () => {
    const lab = await fakeLab((_url, res) => res.writeHead(403, { 'content-type': 'application/json' }).end('{"reason":"Forbidden"}'));
    cleanups.push(lab.close);
    const results = await scheduledWorkloads({ lab, node: NODE, namespace: NS, image: 'busybox', cri: new FakeCri() }, kubelet);
    expect(Object.keys(results)).toHaveLength(6);
    for (const c of Object.values(results)) {
      expect(c.ok).toBe(false);
      expect(c.reason).toMatch(/: 403 \{"reason":"Forbidden"\}$/);
    }
  }, 30_000);
});
