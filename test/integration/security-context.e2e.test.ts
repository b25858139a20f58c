/**
 * Masked /proc paths and AppArmor end to end: the real binary, standalone, with static pods. On
 * containerd the container's own /proc/self/mountinfo answers: a plain container has
 * /proc/timer_list and /proc/keys masked (a mount over each; /proc/kcore, the usual example, does
 * not exist on every kernel, and runc skips what is missing) and /proc/sys read-only, as Go's
 * default lists ask (containerd 1.6 applies exactly the lists it is sent, so without them nothing
 * is masked); `procMount: Unmasked` sends none. A pod asking for an AppArmor profile on a host without AppArmor stays Pending with
 * Go's reason and message and nothing of it is created; on a host with AppArmor it runs under the
 * profile. On the embedded runtime, a plain pod runs (the default lists are accepted) and one asking
 * for no_new_privs is refused with the CRI error naming the field.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-secctx';
const BUSYBOX = 'kubelet-ts.local/busybox:1.0';
const looping = SLEEP_UNTIL_TERM;
const APPARMOR_KEY = 'container.apparmor.security.beta.kubernetes.io/main';

interface ContainerView { name: string; state?: { running?: object; waiting?: { reason?: string; message?: string } } }
interface PodView { name: string; status: { phase?: string; reason?: string; message?: string; containerStatuses?: ContainerView[] } | null }

let k: StaticPodKubelet;
const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) => waitUntil(what, probe, ms, () => k.stderr());

function addPod(name: string, containerSc: object | undefined, annotations?: Record<string, string>): void {
  writeFileSync(join(k.manifests, `${name}.json`), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', looping], ...(containerSc ? { securityContext: containerSc } : {}) }],
    },
  }));
}

async function pod(name: string): Promise<PodView['status'] | undefined> {
  const res = await fetch(`http://${k.debug}/debug/pods`);
  return ((await res.json()) as { pods: PodView[] }).pods.find((p) => p.name === `${name}-${NODE}`)?.status;
}

const container = async (name: string) => (await pod(name))?.containerStatuses?.[0];
const containerdCri = containerdEndpoint();

/** Runs `command` in the pod's running container through the runtime, as `kubectl exec` would. */
async function execIn(name: string, command: string): Promise<string> {
  const cri = createCriClient({ endpoint: containerdCri });
  try {
    const [c] = await cri.runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { 'io.kubernetes.pod.name': `${name}-${NODE}` } });
    if (!c) throw new Error(`no running container in ${name}`);
    return (await cri.runtime.execSync(c.id, ['sh', '-c', command], 10)).stdout.toString();
  } finally {
    cri.close();
  }
}

/** How many sandboxes and containers of the pod the runtime has. */
async function createdOf(name: string): Promise<number> {
  const cri = createCriClient({ endpoint: containerdCri });
  const label_selector = { 'io.kubernetes.pod.name': `${name}-${NODE}` };
  try {
    return (await cri.runtime.listPodSandbox({ label_selector })).length + (await cri.runtime.listContainers({ label_selector })).length;
  } finally {
    cri.close();
  }
}

/** What the running container's mount table says of two masked files (a mount on each) and /proc/sys (its options). */
async function procView(name: string): Promise<{ masked: boolean; procSys: string }> {
  await until(`${name} running`, async () => (await container(name))?.state?.running);
  const table = await execIn(name, 'cat /proc/self/mountinfo');
  const mounts = table.split('\n').map((line) => line.split(' ')).filter((f) => f.length > 5);
  const at = (path: string) => mounts.filter((f) => f[4] === path);
  return { masked: at('/proc/timer_list').length > 0 && at('/proc/keys').length > 0, procSys: at('/proc/sys').at(-1)?.[5]?.split(',')[0] ?? 'none' };
}

/** runc's test for AppArmor, as the kubelet makes it. */
const hostHasAppArmor = existsSync('/sys/kernel/security/apparmor') &&
  (() => { try { return readFileSync('/sys/module/apparmor/parameters/enabled', 'utf8').startsWith('Y'); } catch { return false; } })();

describeNeeding(partForEndpoint(containerdCri), 'masked /proc paths and AppArmor on containerd', () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: containerdCri, nodeName: NODE, prefix: 'kts-secctx-' });
    addPod('plain', undefined);
    addPod('unmasked', { procMount: 'Unmasked' });
    addPod('apparmor', undefined, { [APPARMOR_KEY]: 'runtime/default' });
    addPod('apparmor-unconfined', undefined, { [APPARMOR_KEY]: 'unconfined' });
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('masks /proc/timer_list and /proc/keys and makes /proc/sys read-only in a plain container', async () => {
    expect(await procView('plain')).toEqual({ masked: true, procSys: 'ro' });
    // Masked with /dev/null: reading it gives nothing rather than the kernel's timers.
    expect(await execIn('plain', 'wc -c < /proc/timer_list')).toBe('0\n');
  }, 60_000);

  it('masks nothing for procMount: Unmasked', async () => {
    expect((await procView('unmasked')).masked).toBe(false);
    expect(Number(await execIn('unmasked', 'wc -c < /proc/timer_list'))).toBeGreaterThan(0);
  }, 60_000);

  it('runs a pod whose AppArmor annotation says unconfined', async () => {
    await until('apparmor-unconfined running', async () => (await container('apparmor-unconfined'))?.state?.running);
  }, 60_000);

  if (hostHasAppArmor) {
    it('runs a pod asking for runtime/default under the runtime\'s profile', async () => {
      await until('apparmor running', async () => (await container('apparmor'))?.state?.running);
      expect(await execIn('apparmor', 'cat /proc/self/attr/current')).toMatch(/cri-containerd\.apparmor\.d \(enforce\)/);
    }, 60_000);
  } else {
    it('keeps a pod asking for runtime/default Pending on this host without AppArmor, creating nothing', async () => {
      const status = await until('apparmor blocked', async () => {
        const s = await pod('apparmor');
        return s?.reason === 'AppArmor' ? s : undefined;
      });
      expect(status).toMatchObject({
        phase: 'Pending', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host',
        containerStatuses: [{ name: 'main', state: { waiting: { reason: 'Blocked' } } }],
      });
      expect(await createdOf('apparmor')).toBe(0);
    }, 60_000);
  }
});

describeNeeding(partForEndpoint('embedded'), 'security the embedded runtime cannot apply', () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-secctx-embedded-' });
    addPod('plain', undefined);
    addPod('no-escalation', { allowPrivilegeEscalation: false });
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('runs a plain pod (the default masked paths are accepted) and refuses no_new_privs with the CRI error naming it', async () => {
    await until('plain running', async () => (await container('plain'))?.state?.running);
    const waiting = await until('no-escalation refused', async () => {
      const w = (await container('no-escalation'))?.state?.waiting;
      return w?.reason === 'CreateContainerError' ? w : undefined;
    });
    expect(waiting.message).toContain('container linux.security_context.no_new_privs true is not supported by the embedded runtime');
  }, 60_000);
});
