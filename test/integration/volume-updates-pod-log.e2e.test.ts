/**
 * What the upstream [NodeConformance] specs `ConfigMap updates should be reflected in volume` and
 * `Projected secret optional updates should be reflected in volume` check, on the real control
 * plane (kube-lab.ts), on the embedded runtime and on containerd (KUBELET_IT_CRI): a pod's log read
 * through the API server as client-go reads it (GET pods/NAME/log?container=…&previous=false) shows a
 * ConfigMap update and an optional Secret created after the pod, within the Go kubelet's bound with
 * the default syncFrequency (1 min, jittered by up to 50 %), even while a sibling container crash-loops
 * and keeps the pod's worker out of its idle resync. The crash-looping container's log reads, between
 * two runs, as Go serves it: its last run, for the current log and for `previous` alike.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi, labPodLog } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
/** syncFrequency × 1.5: the longest the Go kubelet's periodic resync waits. */
const GO_BOUND_MS = 90_000;

/** Prints the ConfigMap's and the optional Secret's files whenever they change. */
const WATCHER = [
  'last=""',
  'while :; do',
  '  now="CM $(cat /cm/greeting) SECRET $(cat /opt/password 2>/dev/null || echo none)"',
  '  if [ "$now" != "$last" ]; then echo "$now"; last=$now; fi',
  // The watcher's polling step: a shell has no event for a file's change.
  '  sleep 0.2 & wait $!',
  'done',
].join('\n');
/**
 * Counts its runs in an emptyDir, says which one it is, and fails. The second it lives is its run's
 * length, not a wait: the test waits for the restart count and the back-off from the API.
 */
const CRASHER = 'n=$(( $(cat /runs/n 2>/dev/null || echo 0) + 1 )); echo $n > /runs/n; echo "run $n"; sleep 1; exit 1';

interface Status { containerStatuses?: { name: string; restartCount: number; state?: { waiting?: { reason?: string } } }[] }

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `volume updates in a pod's log through the real API server, ${rt.name} runtime`, () => {
  let n: LabNode;
  const log = (container: string, previous = false) => labPodLog(n.lab, n.ns, 'watch', container, previous);
  const crasher = async () => (await n.get<{ status?: Status }>(`/api/v1/namespaces/${n.ns}/pods/watch`)).status?.containerStatuses?.find((c) => c.name === 'crasher');

  beforeAll(async () => {
    // The default syncFrequency (1 min): what the upstream specs run against.
    n = await startLabNode({ name: `kts-vlog-${rt.name}`, endpoint: rt.endpoint, resolvable: true });
    await n.create(`/api/v1/namespaces/${n.ns}/configmaps`, { metadata: { name: 'settings' }, data: { greeting: 'hello' } });
    await n.createPod('watch', {
      containers: [
        { name: 'main', image: BUSYBOX, command: ['sh', '-c', WATCHER], volumeMounts: [{ name: 'cm', mountPath: '/cm' }, { name: 'opt', mountPath: '/opt' }] },
        { name: 'crasher', image: BUSYBOX, command: ['sh', '-c', CRASHER], volumeMounts: [{ name: 'runs', mountPath: '/runs' }] },
      ],
      volumes: [
        { name: 'cm', configMap: { name: 'settings' } },
        { name: 'opt', secret: { secretName: 'later', optional: true } },
        { name: 'runs', emptyDir: {} },
      ],
    });
    await n.whileUp('watch Running', async () => (await n.pod('watch'))?.status?.phase === 'Running', 60_000);
  }, 180_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('reads the running container\'s log as client-go does: the ConfigMap\'s content, the optional Secret absent', async () => {
    // The API server reads /etc/hosts again at most every 5 s: the node's name may not resolve at first.
    const first = await n.whileUp('the first line in the log', async () => {
      const res = await log('main');
      return res.status === 200 && res.text.includes('CM ') ? res : undefined;
    }, 45_000);
    expect(first.text).toBe('CM hello SECRET none\n');
  }, 60_000);

  it('reads a crash-looping container\'s last run between two runs, for its log and its previous log alike', async () => {
    const backingOff = await n.whileUp('crasher in CrashLoopBackOff after its second run', async () => {
      const c = await crasher();
      return c?.state?.waiting?.reason === 'CrashLoopBackOff' && c.restartCount >= 1 ? c : undefined;
    }, 60_000);
    const [current, previous] = await Promise.all([log('crasher'), log('crasher', true)]);
    // Still the same wait (a back-off lasts 10 s at least): both reads saw the same state.
    expect((await crasher())?.restartCount).toBe(backingOff.restartCount);
    const lastRun = `run ${backingOff.restartCount + 1}\n`;
    expect(current).toEqual({ status: 200, text: lastRun });
    expect(previous).toEqual({ status: 200, text: lastRun });
  }, 90_000);

  it('shows a ConfigMap update and an optional Secret created later within the Go kubelet\'s resync bound, the sibling crash-looping', async () => {
    const path = `/api/v1/namespaces/${n.ns}/configmaps/settings`;
    const current = await n.get<Record<string, unknown>>(path);
    expect((await labApi(n.lab, 'PUT', path, { ...current, data: { greeting: 'hello again' } })).status).toBe(200);
    await n.create(`/api/v1/namespaces/${n.ns}/secrets`, { metadata: { name: 'later' }, stringData: { password: 'first' } });
    const started = Date.now();
    const refusals: string[] = [];
    await n.whileUp('the update and the new Secret in the log', async () => {
      const res = await log('main');
      if (res.status !== 200) refusals.push(`${res.status} ${res.text}`);
      return res.status === 200 && res.text.includes('CM hello again SECRET first\n');
    }, GO_BOUND_MS);
    expect(Date.now() - started).toBeLessThan(GO_BOUND_MS);
    // The running container's log never failed meanwhile.
    expect(refusals).toEqual([]);
  }, GO_BOUND_MS + 30_000);
});
