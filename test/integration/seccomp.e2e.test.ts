/**
 * Seccomp and no_new_privs end to end: the real binary, standalone, with static pods. On containerd
 * the kernel's own view answers (the Seccomp and NoNewPrivs lines of the container's
 * /proc/1/status: 2 is a filter, 0 none); a kubelet restarted with seccompDefault gives a new
 * profile-less pod the runtime's default filter. On the embedded runtime, which installs no filter,
 * a pod asking for one is refused with the CRI error naming the field, never run unconfined.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-seccomp';
const BUSYBOX = 'kubelet-ts.local/busybox:1.0';
const looping = SLEEP_UNTIL_TERM;

interface ContainerView { name: string; state?: { running?: object; waiting?: { reason?: string; message?: string } } }
interface PodView { name: string; status: { containerStatuses?: ContainerView[] } | null }

let k: StaticPodKubelet;
const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) => waitUntil(what, probe, ms, () => k.stderr());

function addPod(name: string, podSc: object | undefined, containerSc: object | undefined): void {
  writeFileSync(join(k.manifests, `${name}.json`), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 2,
      ...(podSc ? { securityContext: podSc } : {}),
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', looping], ...(containerSc ? { securityContext: containerSc } : {}) }],
    },
  }));
}

async function container(name: string): Promise<ContainerView | undefined> {
  const res = await fetch(`http://${k.debug}/debug/pods`);
  return ((await res.json()) as { pods: PodView[] }).pods.find((p) => p.name === `${name}-${NODE}`)?.status?.containerStatuses?.[0];
}

const containerdCri = containerdEndpoint();

/** Runs `command` in the pod's running container through the runtime, as `kubectl exec` would. */
async function execIn(pod: string, command: string): Promise<{ stdout: string; exitCode: number }> {
  const cri = createCriClient({ endpoint: containerdCri });
  try {
    const [c] = await cri.runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' }, label_selector: { 'io.kubernetes.pod.name': `${pod}-${NODE}` } });
    if (!c) throw new Error(`no running container in ${pod}`);
    const out = await cri.runtime.execSync(c.id, ['sh', '-c', command], 10);
    return { stdout: out.stdout.toString(), exitCode: out.exit_code };
  } finally {
    cri.close();
  }
}

/** The Seccomp and NoNewPrivs lines of the container's PID 1, once it runs. */
async function confinement(pod: string): Promise<{ seccomp: string; noNewPrivs: string }> {
  await until(`${pod} running`, async () => (await container(pod))?.state?.running);
  const status = (await execIn(pod, 'cat /proc/1/status')).stdout;
  return { seccomp: /^Seccomp:\t(\d)$/m.exec(status)?.[1] ?? '?', noNewPrivs: /^NoNewPrivs:\t(\d)$/m.exec(status)?.[1] ?? '?' };
}

describeNeeding(partForEndpoint(containerdCri), 'seccomp profiles and no_new_privs on containerd', () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: containerdCri, nodeName: NODE, prefix: 'kts-seccomp-' });
    // A Localhost profile under <root-dir>/seccomp: everything allowed but mkdir, so its effect is its own.
    mkdirSync(join(k.root, 'seccomp', 'profiles'), { recursive: true });
    writeFileSync(join(k.root, 'seccomp', 'profiles', 'no-mkdir.json'), JSON.stringify({
      defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO' }],
    }));
    addPod('plain', undefined, undefined);
    addPod('runtime-default', { seccompProfile: { type: 'RuntimeDefault' } }, undefined);
    addPod('localhost', undefined, { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/no-mkdir.json' } });
    addPod('no-escalation', undefined, { allowPrivilegeEscalation: false });
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('runs a pod without a profile unconfined, and one asking for RuntimeDefault under a filter', async () => {
    expect(await confinement('plain')).toEqual({ seccomp: '0', noNewPrivs: '0' });
    expect((await confinement('runtime-default')).seccomp).toBe('2');
  }, 60_000);

  it('applies a Localhost profile from <root-dir>/seccomp', async () => {
    expect((await confinement('localhost')).seccomp).toBe('2');
    const mkdir = await execIn('localhost', 'mkdir /tmp/blocked');
    expect(mkdir.exitCode).not.toBe(0);
    expect((await execIn('localhost', 'touch /tmp/allowed && echo ok')).stdout).toBe('ok\n');
  }, 60_000);

  it('sets no_new_privs only for an explicit allowPrivilegeEscalation: false', async () => {
    expect(await confinement('no-escalation')).toEqual({ seccomp: '0', noNewPrivs: '1' });
  }, 60_000);

  it('gives a new profile-less pod RuntimeDefault once the kubelet runs with seccompDefault, leaving running ones as they are', async () => {
    await k.stop();
    k = await startStaticPodKubelet({ endpoint: containerdCri, nodeName: NODE, dir: k.dir, config: ['seccompDefault: true'] });
    addPod('plain-defaulted', undefined, undefined);
    expect((await confinement('plain-defaulted')).seccomp).toBe('2');
    // As in Go, the profile is no part of the container's hash: the running pod is not restarted.
    expect((await confinement('plain')).seccomp).toBe('0');
    addPod('opted-out', { seccompProfile: { type: 'Unconfined' } }, undefined);
    expect((await confinement('opted-out')).seccomp).toBe('0');
  }, 90_000);
});

describeNeeding(partForEndpoint('embedded'), 'seccomp profiles on the embedded runtime', () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-seccomp-embedded-' });
    addPod('runtime-default', undefined, { seccompProfile: { type: 'RuntimeDefault' } });
    addPod('unconfined', undefined, { seccompProfile: { type: 'Unconfined' } });
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('refuses a container asking for RuntimeDefault with the CRI error naming seccomp, and runs an Unconfined one', async () => {
    const waiting = await until('runtime-default refused', async () => {
      const w = (await container('runtime-default'))?.state?.waiting;
      return w?.reason === 'CreateContainerError' ? w : undefined;
    });
    expect(waiting.message).toContain('container linux.security_context.seccomp RuntimeDefault is not supported by the embedded runtime');
    await until('unconfined running', async () => (await container('unconfined'))?.state?.running);
  }, 60_000);
});
