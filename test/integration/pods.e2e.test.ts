/**
 * Static pods end to end, on the embedded runtime and on containerd (when KUBELET_IT_CRI names one;
 * in CI it must): the real binary, a manifest directory, and what a person sees (the pods' statuses
 * on /debug/pods, their log files, the runtime's containers).
 */
import { existsSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { freePort, startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';

const NODE = 'node-a';

interface PodView {
  uid: string;
  name: string;
  lifecycle: string;
  status: {
    phase?: string;
    hostIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; restartCount: number; state?: { running?: object; waiting?: { reason?: string }; terminated?: object } }[];
  } | null;
}

/** What differs between runtimes: where the kubelet connects, where a probe's marker file lives. */
interface PodRuntime {
  name: string;
  endpoint: () => string;
  /** Where a client reaches the runtime while the kubelet runs (the embedded runtime serves a socket in its state dir). */
  criEndpoint: () => string;
  /** The marker's path as the container sees it. */
  markerPath: (name: string) => string;
  setMarker: (podName: string, name: string, present: boolean) => Promise<void>;
}

const embedded: PodRuntime = {
  name: 'embedded',
  endpoint: () => 'embedded',
  criEndpoint: () => `unix://${join(k.root, 'embedded-runtime', 'cri.sock')}`,
  markerPath: (name) => join(k.dir, name),
  setMarker: async (_pod, name, present) => {
    if (present) writeFileSync(join(k.dir, name), '');
    else rmSync(join(k.dir, name), { force: true });
  },
};

function containerd(endpoint: string): PodRuntime {
  return {
    name: 'containerd',
    endpoint: () => endpoint,
    criEndpoint: () => endpoint,
    markerPath: (name) => `/tmp/${name}`,
    // Inside the container's own file system: through the runtime, as `kubectl exec` would.
    setMarker: async (podName, name, present) => {
      const cri = createCriClient({ endpoint });
      try {
        const [c] = await cri.runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { 'io.kubernetes.pod.name': `${podName}-${NODE}` } });
        if (!c) throw new Error(`no running container in ${podName}`);
        await cri.runtime.execSync(c.id, ['sh', '-c', present ? `touch /tmp/${name}` : `rm -f /tmp/${name}`], 5);
      } finally {
        cri.close();
      }
    },
  };
}

const RUNTIMES: PodRuntime[] = [embedded, containerd(containerdEndpoint())];

let k: StaticPodKubelet;
const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) => waitUntil(what, probe, ms, () => k.stderr());

const pod = (name: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { terminationGracePeriodSeconds: 3, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', ...container }], ...extra } });

// A line each second until SIGTERM: a running container with a log; not a wait of the test's.
const looping = (line: string) => ({ command: ['sh', '-c', `trap 'exit 0' TERM; while :; do echo ${line}; sleep 1 & wait $!; done`] });

async function pods(): Promise<{ pods: PodView[]; rejectedManifests: { origin: string; reason: string }[] }> {
  const res = await fetch(`http://${k.debug}/debug/pods`);
  return (await res.json()) as { pods: PodView[]; rejectedManifests: { origin: string; reason: string }[] };
}


const byName = async (name: string) => (await pods()).pods.find((p) => p.name === `${name}-${NODE}` && p.lifecycle === 'active');
const running = (p: PodView | undefined) => p?.status?.phase === 'Running' && p.status.containerStatuses?.every((c) => c.state?.running) ? p : undefined;
const ready = (p: PodView | undefined) => p?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** Every log line of the pod's `main` container, across its pod UIDs (an edit makes a new one). */
function logOf(name: string): string {
  return readdirSync(k.logs)
    .filter((d) => d.startsWith(`default_${name}-${NODE}_`))
    .flatMap((d) => {
      const cdir = join(k.logs, d, 'main');
      return existsSync(cdir) ? readdirSync(cdir).map((f) => readFileSync(join(cdir, f), 'utf8')) : [];
    })
    .join('');
}

/** The ids of the runtime's sandboxes of static pod `name`, whatever their state. */
async function sandboxesOf(rt: PodRuntime, name: string): Promise<string[]> {
  const cri = createCriClient({ endpoint: rt.criEndpoint() });
  try {
    return (await cri.runtime.listPodSandbox({ label_selector: { 'io.kubernetes.pod.name': `${name}-${NODE}` } })).map((s) => s.id);
  } finally {
    cri.close();
  }
}

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint()), `on the ${rt.name} runtime`, () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: rt.endpoint(), nodeName: NODE, prefix: 'kts-pods-' });
    writeFileSync(join(k.manifests, 'web.json'), pod('web', looping('web-v1')));
    writeFileSync(join(k.manifests, 'worker.yaml'), pod('worker', looping('worker-running')));
    writeFileSync(join(k.manifests, 'bad.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [}\n');
  }, 60_000);

  afterAll(() => k.dispose((name) => name.endsWith(`-${NODE}`)), 60_000);

  describe('static pods', () => {
    it('starts the pods of a manifest directory, and their containers log', async () => {
      await until('web running', async () => running(await byName('web')));
      await until('worker running', async () => running(await byName('worker')));
      await until('web logging', async () => logOf('web').includes('stdout F web-v1'));
    });

    it('gives a container its pod\'s status.hostIP through the downward API, with no --node-ip', async () => {
      const env = [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }];
      // Prints once, then idles until SIGTERM; the sleep is its loop's step, not a wait of the test's.
      writeFileSync(join(k.manifests, 'hostip.json'), pod('hostip', { env, command: ['sh', '-c', 'echo "host-ip=$HOST_IP"; trap \'exit 0\' TERM; sleep 3600 & wait $!'] }));
      const p = await until('hostip running', async () => running(await byName('hostip')));
      const hostIP = p.status?.hostIP;
      expect(hostIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      await until('hostip logging its HOST_IP', async () => logOf('hostip').includes(`stdout F host-ip=${hostIP}`));
      rmSync(join(k.manifests, 'hostip.json'));
    });

    it('reports a malformed manifest by file name while the others keep running', async () => {
      const view = await until('the rejection', async () => {
        const v = await pods();
        return v.rejectedManifests.some((r) => r.origin.endsWith('bad.yaml')) ? v : undefined;
      });
      expect(view.rejectedManifests.find((r) => r.origin.endsWith('bad.yaml'))?.reason).toBeTruthy();
      expect(running(await byName('web'))).toBeTruthy();
    });

    it('restarts a pod with its new spec when its manifest is edited', async () => {
      const before = (await until('web running', async () => running(await byName('web'))))!;
      writeFileSync(join(k.manifests, 'web.json'), pod('web', looping('web-v2')));
      const after = await until('web restarted with v2', async () => {
        const p = running(await byName('web'));
        return p && p.uid !== before.uid ? p : undefined;
      });
      expect(after.uid).not.toBe(before.uid);
      await until('web logging v2', async () => logOf('web').includes('stdout F web-v2'));
    }, 40_000);

    it('terminates a pod within its grace period when its manifest is deleted, and removes its sandbox at once', async () => {
      await until('worker running', async () => running(await byName('worker')));
      expect(await sandboxesOf(rt, 'worker')).toHaveLength(1);
      const t0 = Date.now();
      unlinkSync(join(k.manifests, 'worker.yaml'));
      await until('worker gone', async () => !(await pods()).pods.some((p) => p.name === `worker-${NODE}`), 15_000);
      // Grace period 3 s; the trap exits at once. Allow the file watch and the kill round trip.
      expect(Date.now() - t0).toBeLessThan(3_000 + 5_000);
      // The pod sandbox deletor, not the minute's container GC: its containers go, then its sandbox,
      // each within a relist or two of the pod's end.
      await until('worker\'s sandbox removed', async () => (await sandboxesOf(rt, 'worker')).length === 0, 20_000);
      expect(Date.now() - t0).toBeLessThan(3_000 + 12_000);
    }, 40_000);

    it('restarts a crashing container with CrashLoopBackOff in between', async () => {
      writeFileSync(join(k.manifests, 'crash.json'), pod('crash', { command: ['sh', '-c', 'echo crashing; exit 1'] }));
      const seen = await until('a restart and the back-off', async () => {
        const c = (await byName('crash'))?.status?.containerStatuses?.[0];
        return c && c.restartCount >= 1 && c.state?.waiting?.reason === 'CrashLoopBackOff' ? c : undefined;
      }, 40_000);
      expect(seen.restartCount).toBeGreaterThanOrEqual(1);
    }, 50_000);

    it('restarts a container whose liveness probe fails', async () => {
      const marker = rt.markerPath('alive');
      // Each new container creates the marker as it starts; removing it fails the probe.
      writeFileSync(join(k.manifests, 'live.json'), pod('live', {
        command: ['sh', '-c', `touch ${marker}; trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done`], // idles until SIGTERM; the test waits on the probe and restart count
        livenessProbe: { exec: { command: ['test', '-f', marker] }, periodSeconds: 1, failureThreshold: 1 },
      }));
      await until('live running', async () => running(await byName('live')));
      await rt.setMarker('live', 'alive', false);
      const c = await until('a liveness restart', async () => {
        const s = (await byName('live'))?.status?.containerStatuses?.[0];
        return s && s.restartCount >= 1 ? s : undefined;
      }, 30_000);
      expect(c.restartCount).toBeGreaterThanOrEqual(1);
    }, 40_000);

    it('restarts a container whose gRPC liveness probe finds no health server', async () => {
      // Nothing serves grpc.health.v1 at this port on the pod's IP: every attempt fails when its
      // one-second timeout is up, as Go's blocking dial does.
      const port = await freePort();
      writeFileSync(join(k.manifests, 'grpc-live.json'), pod('grpc-live', {
        ...looping('grpc-live'),
        livenessProbe: { grpc: { port }, periodSeconds: 1, failureThreshold: 1 },
      }));
      const c = await until('a gRPC liveness restart', async () => {
        const s = (await byName('grpc-live'))?.status?.containerStatuses?.[0];
        return s && s.restartCount >= 1 ? s : undefined;
      }, 30_000);
      expect(c.restartCount).toBeGreaterThanOrEqual(1);
      // The prober's verdict in Go's words, as the worker reported it (the pod IP is the runtime's).
      const { records } = (await (await fetch(`http://${k.debug}/debug/journal/records`)).json()) as {
        records: { name: string; payload: { probe?: string; result?: string; output?: string } }[];
      };
      const failed = records.find((r) => r.name === 'probe.result.changed' && r.payload.probe === 'liveness' && r.payload.output?.includes(`:${port}"`));
      expect(failed?.payload.output).toMatch(new RegExp(`^timeout: failed to connect service "[^"]+:${port}" within 1s: context deadline exceeded$`));
    }, 40_000);

    it('flips Ready with the readiness probe', async () => {
      const marker = rt.markerPath('ready');
      await rt.setMarker('ready', 'ready', false).catch(() => {});
      writeFileSync(join(k.manifests, 'ready.json'), pod('ready', {
        ...looping('ready'),
        readinessProbe: { exec: { command: ['test', '-f', marker] }, periodSeconds: 1 },
      }));
      await until('ready running, not Ready', async () => ready(running(await byName('ready'))) === 'False');
      await rt.setMarker('ready', 'ready', true);
      await until('Ready', async () => ready(await byName('ready')) === 'True');
      await rt.setMarker('ready', 'ready', false);
      await until('not Ready again', async () => ready(await byName('ready')) === 'False');
    }, 40_000);
  });
});
