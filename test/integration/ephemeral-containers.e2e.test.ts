/**
 * Ephemeral containers (`kubectl debug`) on the real control plane (kube-lab.ts), on the embedded
 * runtime and on containerd (KUBELET_IT_CRI), as the e2e spec "Ephemeral Containers will start an
 * ephemeral container in an existing pod" drives them: one is added through the
 * pods/ephemeralcontainers subresource, the kubelet starts it in the running pod's sandbox with
 * the pod's volume and its own env, reports it in status.ephemeralContainerStatuses, posts its
 * events at spec.ephemeralContainers{debugger}, and the API server's exec and logs proxies reach it
 * by name. On containerd it shares its target's process namespace (pid TARGET): its pid 1 is the
 * target's process. Once exited it is never started again; deleting the pod stops a running one
 * (its Killing event) before the pod leaves the API.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { journalMark, untilChildDone } from '../support/kubelet-journal.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, SLEEP, startLabNode, type ContainerStatus, type LabNode, type LabPod } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

type DebuggedPod = LabPod & { status?: { ephemeralContainerStatuses?: (ContainerStatus & { image?: string; imageID?: string; containerID?: string })[] } };

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `ephemeral containers on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;
  const kubectl = (args: string[]) => runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', ns, ...args]);
  const debuggerStatus = async () => ((await n.pod('target')) as DebuggedPod | undefined)?.status?.ephemeralContainerStatuses?.find((s) => s.name === 'debugger');

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-eph-${rt.name}`, endpoint: rt.endpoint, resolvable: true });
    ns = n.ns;
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('starts an ephemeral container added through pods/ephemeralcontainers and reports it running', async () => {
    await n.createPod('target', {
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', `echo from-main > /shared/note; ${SLEEP}`], volumeMounts: [{ name: 'shared', mountPath: '/shared' }] }],
      volumes: [{ name: 'shared', emptyDir: {} }],
    });
    await n.whileUp('target Running', async () => (await n.pod('target'))?.status?.phase === 'Running', 60_000);

    const pod = await n.get<DebuggedPod>(`/api/v1/namespaces/${ns}/pods/target`);
    const debug = {
      // Polls for /shared/stop each second (a shell has no file event): it runs until the test says stop.
      name: 'debugger', image: BUSYBOX, command: ['sh', '-c', 'echo debugger up; while [ ! -e /shared/stop ]; do sleep 1; done'], stdin: true, tty: true, targetContainerName: 'main',
      env: [{ name: 'ROLE', value: 'debug' }], volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
    };
    const put = await labApi(n.lab, 'PUT', `/api/v1/namespaces/${ns}/pods/target/ephemeralcontainers`, { ...pod, spec: { ...pod.spec, ephemeralContainers: [debug] } });
    expect(put.status).toBe(200);

    const status = await n.whileUp('debugger running in ephemeralContainerStatuses', async () => {
      const s = await debuggerStatus();
      return s?.state?.running ? s : undefined;
    }, 60_000);
    expect(status).toMatchObject({ name: 'debugger', ready: false, restartCount: 0 });
    expect(status.image).toContain('busybox');
    expect(status.imageID).not.toBe('');
    expect(status.containerID).toMatch(/^[a-z0-9-]+:\/\/[0-9a-zA-Z]+/);

    // The regular container is left alone: started once, still running.
    const after = await n.pod('target');
    expect(after?.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', restartCount: 0, ready: true });

    const fieldPath = 'spec.ephemeralContainers{debugger}';
    const events = await n.whileUp('the debugger\'s Started event', async () => {
      const all = await n.events({ name: 'target', fieldPath });
      return all.some((e) => e.reason === 'Started') ? all : undefined;
    }, 15_000);
    expect(events.map((e) => [e.reason, e.message])).toEqual(expect.arrayContaining([['Created', 'Created container debugger'], ['Started', 'Started container debugger']]));
  }, 120_000);

  it('execs into the ephemeral container through the API server, with its env and the pod\'s volume', async () => {
    await n.untilProxied('target');
    expect(await kubectl(['exec', 'target', '-c', 'debugger', '--', '/bin/echo', 'marco'])).toEqual({ code: 0, stdout: 'marco\n', stderr: '' });
    expect(await kubectl(['exec', 'target', '-c', 'debugger', '--', 'sh', '-c', 'echo "$ROLE $(cat /shared/note)"'])).toEqual({ code: 0, stdout: 'debug from-main\n', stderr: '' });
    const logs = await kubectl(['logs', 'target', '-c', 'debugger']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('debugger up');
  }, 60_000);

  // The embedded runtime has no namespaces to share.
  if (rt.name === 'containerd') it('shares the target container\'s process namespace', async () => {
    const pid1 = await kubectl(['exec', 'target', '-c', 'debugger', '--', 'cat', '/proc/1/cmdline']);
    expect(pid1.code).toBe(0);
    expect(pid1.stdout.split('\0')).toEqual(expect.arrayContaining(['sh', '-c', expect.stringContaining('echo from-main > /shared/note')]));
  }, 30_000);

  it('never starts it again once it exited', async () => {
    const running = await debuggerStatus();
    expect(await kubectl(['exec', 'target', '-c', 'main', '--', 'touch', '/shared/stop'])).toMatchObject({ code: 0 });
    const exited = await n.whileUp('debugger terminated', async () => {
      const s = await debuggerStatus();
      return s?.state?.terminated ? s : undefined;
    }, 30_000);
    expect(exited).toMatchObject({ restartCount: 0, containerID: running?.containerID, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    // A later sync leaves it exited: one started by a label change, after the exit was reported.
    const root = join(n.dir, 'root');
    const mark = journalMark(root);
    const target = await n.get<LabPod>(`/api/v1/namespaces/${ns}/pods/target`);
    expect((await labApi(n.lab, 'PATCH', `/api/v1/namespaces/${ns}/pods/target`, { metadata: { labels: { resynced: 'yes' } } }, 'application/strategic-merge-patch+json')).status).toBe(200);
    const synced = await untilChildDone(root, mark, `pod:${target.metadata.uid}`, 'syncPod', 30_000, n.kubelet().stderr) as { ok: boolean; actions?: { ephemeralContainersToStart?: string[] } };
    expect(synced.ok).toBe(true);
    expect(synced.actions?.ephemeralContainersToStart ?? []).toEqual([]);
    expect(await debuggerStatus()).toMatchObject({ restartCount: 0, containerID: running?.containerID, state: { terminated: { exitCode: 0 } } });
    expect((await n.pod('target'))?.status?.phase).toBe('Running');
  }, 60_000);

  it('stops a running ephemeral container with the pod', async () => {
    const pod = await n.get<DebuggedPod>(`/api/v1/namespaces/${ns}/pods/target`);
    const lingering = { name: 'lingering', image: BUSYBOX, command: ['sh', '-c', SLEEP] };
    const spec = { ...pod.spec, ephemeralContainers: [...(pod.spec.ephemeralContainers as unknown[]), lingering] };
    expect((await labApi(n.lab, 'PUT', `/api/v1/namespaces/${ns}/pods/target/ephemeralcontainers`, { ...pod, spec })).status).toBe(200);
    await n.whileUp('lingering running', async () =>
      ((await n.pod('target')) as DebuggedPod | undefined)?.status?.ephemeralContainerStatuses?.find((s) => s.name === 'lingering')?.state?.running, 60_000);
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${ns}/pods/target`, { gracePeriodSeconds: 5 });
    // The pod leaves the API only once its status shows no container running, the ephemeral ones included.
    await n.whileUp('target gone from the API', async () => (await n.pod('target')) === undefined, 30_000);
    const killing = await n.whileUp('lingering\'s Killing event', async () =>
      (await n.events({ name: 'target', fieldPath: 'spec.ephemeralContainers{lingering}' })).find((e) => e.reason === 'Killing'), 15_000);
    expect(killing).toMatchObject({ type: 'Normal', message: 'Stopping container lingering' });
  }, 120_000);
});
