/**
 * Orphaned pods end to end (HandlePodCleanups' orphan kill), on the embedded runtime and on
 * containerd when KUBELET_IT_CRI names one: a static pod whose manifest is removed while the kubelet
 * is down keeps running (containers outlive the kubelet, as in Go); the next kubelet on the same
 * root dir finds it in the runtime but in no source, stops it, and garbage collection removes its
 * sandbox and log directory, while a static pod still in the manifest directory runs on untouched.
 * Observed as a person would: /debug/pods, /stats/summary on the read-only port (the runtime's
 * running containers by pod), the kubelet's log, the pod log directories, and finally the runtime
 * itself once the kubelet is stopped.
 */
import { readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { freePort, startStaticPodKubelet, until, withRuntime, type StaticPodKubelet } from '../support/daemon.js';

const NODE = 'node-orphans';

const RUNTIMES: { name: string; endpoint: string }[] = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

const pod = (name: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  // Its name each second until SIGTERM: a running container with a log; not a wait of the test's.
  spec: { terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', `trap 'exit 0' TERM; while :; do echo ${name}; sleep 1 & wait $!; done`] }] },
});

interface PodView { name: string; lifecycle: string; status: { containerStatuses?: { name: string; containerID?: string; state?: { running?: object } }[] } | null }
interface SummaryPod { podRef: { name: string; namespace: string }; containers: { name: string }[] }

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `orphaned pods on the ${rt.name} runtime`, () => {
  let first: StaticPodKubelet | undefined;
  let second: StaticPodKubelet | undefined;

  afterAll(async () => {
    await (second ?? first)?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  const start = async (dir?: string) => {
    const readOnlyPort = await freePort();
    const k = await startStaticPodKubelet({
      endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-orphans-', serverPort: await freePort(), config: [`readOnlyPort: ${readOnlyPort}`], ...(dir ? { dir } : {}),
    });
    const debugPods = async () => ((await (await fetch(`http://${k.debug}/debug/pods`)).json()) as { pods: PodView[] }).pods;
    const summaryPods = async () => ((await (await fetch(`http://127.0.0.1:${readOnlyPort}/stats/summary`)).json()) as { pods: SummaryPod[] }).pods;
    return { k, debugPods, summaryPods };
  };
  const runningMain = (pods: PodView[], name: string) =>
    pods.find((p) => p.name === `${name}-${NODE}` && p.lifecycle === 'active')?.status?.containerStatuses?.find((c) => c.name === 'main' && c.state?.running)?.containerID;

  it('stops a running pod that is in no source after a restart, and GC removes its sandbox; a pod still in a source runs on', async () => {
    const one = await start();
    first = one.k;
    writeFileSync(join(one.k.manifests, 'keep.json'), pod('keep'));
    writeFileSync(join(one.k.manifests, 'gone.json'), pod('gone'));
    const keepId = await until('both pods running', async () => {
      const pods = await one.debugPods();
      return runningMain(pods, 'gone') && runningMain(pods, 'keep');
    }, 60_000, () => one.k.stderr());

    expect(await one.k.stop()).toBe(0);
    unlinkSync(join(one.k.manifests, 'gone.json'));

    const two = await start(one.k.dir);
    second = two.k;
    const stderr = () => two.k.stderr();
    // The orphan's container is stopped with the orphan grace period (1 s, floored at 2 s by the container kill).
    const kill = await until('the orphan killed', () => stderr().split('\n').find((l) => l.includes('Killing container with a grace period') && l.includes(`gone-${NODE}`)), 30_000, stderr);
    expect(JSON.parse(kill)).toMatchObject({ pod: `default/gone-${NODE}`, containerName: 'main', gracePeriod: 2 });
    await until('no container of the orphan running', async () => {
      const pods = await two.summaryPods();
      return pods.some((p) => p.podRef.name === `keep-${NODE}`) && !pods.some((p) => p.podRef.name === `gone-${NODE}`);
    }, 30_000, stderr);
    // Container garbage collection (every minute) then removes the stopped sandbox and the log
    // directory of a pod no source has.
    const logDirs = () => readdirSync(two.k.logs);
    await until('the orphan\'s log directory removed', () => !logDirs().some((d) => d.startsWith(`default_gone-${NODE}_`)), 90_000, stderr);
    expect(logDirs().some((d) => d.startsWith(`default_keep-${NODE}_`))).toBe(true);

    // keep was adopted, not restarted: the same container, still running, never killed.
    expect(runningMain(await two.debugPods(), 'keep')).toBe(keepId);
    expect(stderr().split('\n').filter((l) => l.includes('Killing container') && l.includes(`keep-${NODE}`))).toEqual([]);
    expect((await two.debugPods()).map((p) => p.name)).not.toContain(`gone-${NODE}`);
    // Its runtime-only worker was forgotten once the kill was done.
    expect(((await (await fetch(`http://${two.k.debug}/debug/pods`)).json()) as { orphans: string[] }).orphans).toEqual([]);

    // What the runtime holds once this kubelet stopped too: no trace of the orphan, keep's container running.
    expect(await two.k.stop()).toBe(0);
    const left = await withRuntime({ endpoint: rt.endpoint, rootDir: two.k.root }, async (cri) => ({
      sandboxes: (await cri.runtime.listPodSandbox()).filter((sb) => sb.metadata.name.endsWith(`-${NODE}`)).map((sb) => sb.metadata.name),
      containers: (await cri.runtime.listContainers()).filter((c) => c.labels['io.kubernetes.pod.name']?.endsWith(`-${NODE}`)).map((c) => ({ pod: c.labels['io.kubernetes.pod.name'], id: c.id, state: c.state })),
    }));
    expect(left.sandboxes).toEqual([`keep-${NODE}`]);
    expect(left.containers).toEqual([{ pod: `keep-${NODE}`, id: keepId?.split('://')[1], state: 'CONTAINER_RUNNING' }]);
  }, 200_000);
});
