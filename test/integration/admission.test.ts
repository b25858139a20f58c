/**
 * Pod admission end to end (issue #5): the real binary, standalone, on the embedded runtime, with
 * node labels and a NoExecute taint from the command line. A static pod asking for 1000 cores and
 * one whose nodeSelector the node lacks are refused (phase Failed, OutOfcpu / NodeAffinity, Go's
 * messages) on /pods and /debug/pods, and their Warning events reach the log; so is one asking for
 * an unsafe sysctl the node does not allow (SysctlForbidden); a pod selecting
 * the node's own labels runs beside them (a static pod is not held to the node's taints).
 * Admission does not touch the runtime, so the embedded runtime is enough.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpsGet, startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-admission';

interface DebugPod { name: string; lifecycle: string; status: { phase?: string; reason?: string; message?: string; containerStatuses?: { state?: { running?: object } }[] } | null }
interface ApiPod { metadata: { name: string }; status: { phase?: string; reason?: string; message?: string } }

describe('pod admission on the embedded runtime', () => {
  let k: StaticPodKubelet;
  let port = 0;
  const debugPods = async () => ((await (await fetch(`http://${k.debug}/debug/pods`)).json()) as { pods: DebugPod[] }).pods;
  const byName = (pods: DebugPod[], name: string) => pods.find((p) => p.name === `${name}-${NODE}`);

  beforeAll(async () => {
    port = await freePort();
    k = await startStaticPodKubelet({
      endpoint: 'embedded', nodeName: NODE, prefix: 'kts-admission-', serverPort: port,
      // --v=2: the standalone event recorder logs events at debug level, as Go's log sink at V(2).
      args: ['--node-labels=disktype=hdd', '--register-with-taints=dedicated=db:NoExecute', '--v=2'],
    });
    // YAML: the request is a bare number, as people write it.
    writeFileSync(join(k.manifests, 'big.yaml'), [
      'apiVersion: v1', 'kind: Pod', 'metadata: {name: big}',
      'spec:', '  containers:', '  - name: main', '    image: kubelet-ts.local/busybox:1.0', '    command: [sh, -c, "sleep 3600"]', // stays up: admission refuses it before it runs, the test waits on the pod's status
      '    resources: {requests: {cpu: 1000}}', '',
    ].join('\n'));
    writeFileSync(join(k.manifests, 'picky.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'picky' },
      // The container only has to exist until the test deletes its pod.
      spec: { nodeSelector: { disktype: 'ssd' }, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'sleep 3600'] }] },
    }));
    writeFileSync(join(k.manifests, 'good.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'good' },
      spec: {
        terminationGracePeriodSeconds: 2,
        nodeSelector: { disktype: 'hdd', 'kubernetes.io/hostname': NODE },
        containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } }, command: ['sh', '-c', SLEEP_UNTIL_TERM] }],
      },
    }));
    writeFileSync(join(k.manifests, 'tuned.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tuned' },
      // The container only has to exist until the test deletes its pod.
      spec: { securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'kernel.msgmax', value: '10000000000' }] }, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'sleep 3600'] }] },
    }));
    await until('good running, big, picky and tuned refused', async () => {
      const pods = await debugPods();
      const good = byName(pods, 'good')?.status?.containerStatuses?.[0]?.state?.running;
      return good && ['big', 'picky', 'tuned'].every((name) => byName(pods, name)?.lifecycle === 'rejected');
    }, 60_000, () => k.stderr());
  }, 90_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('refuses the pod asking for 1000 cores with OutOfcpu, and the one whose nodeSelector the node lacks with NodeAffinity (/debug/pods)', async () => {
    const pods = await debugPods();
    expect(byName(pods, 'big')?.status).toMatchObject({
      phase: 'Failed', reason: 'OutOfcpu',
      message: expect.stringMatching(/^Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: (0|10), capacity: \d+$/),
    });
    expect(byName(pods, 'picky')?.status).toMatchObject({
      phase: 'Failed', reason: 'NodeAffinity', message: "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    });
    expect(byName(pods, 'good')?.lifecycle).toBe('active');
  });

  it('refuses the pod asking for an unsafe sysctl the node does not allow with SysctlForbidden', async () => {
    expect(byName(await debugPods(), 'tuned')?.status).toMatchObject({
      phase: 'Failed', reason: 'SysctlForbidden', message: 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted',
    });
  });

  it('serves the same statuses on the kubelet server\'s /pods', async () => {
    const res = await httpsGet(port, '/pods');
    expect(res.status).toBe(200);
    const items = (JSON.parse(res.body) as { items: ApiPod[] }).items;
    const status = (name: string) => items.find((p) => p.metadata.name === `${name}-${NODE}`)?.status;
    expect(status('big')).toMatchObject({ phase: 'Failed', reason: 'OutOfcpu' });
    expect(status('picky')).toMatchObject({ phase: 'Failed', reason: 'NodeAffinity' });
    expect(status('good')?.phase).toBe('Running');
  });

  it('records a Warning event for each refused pod', async () => {
    const events = () => k.stderr().split('\n').filter((l) => l.includes('"msg":"Event occurred"')).map((l) => JSON.parse(l) as { object: { name: string }; eventType: string; reason: string; eventMessage: string });
    await until('both events logged', () => events().length >= 2, 10_000, () => k.stderr());
    expect(events()).toEqual(expect.arrayContaining([
      expect.objectContaining({ object: expect.objectContaining({ kind: 'Pod', name: `big-${NODE}` }), eventType: 'Warning', reason: 'OutOfcpu', eventMessage: expect.stringMatching(/^Node didn't have enough resource: cpu/) }),
      expect.objectContaining({ object: expect.objectContaining({ kind: 'Pod', name: `picky-${NODE}` }), eventType: 'Warning', reason: 'NodeAffinity' }),
    ]));
  });
});
