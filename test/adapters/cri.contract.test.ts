/**
 * The CRI contract: what kubelet-ts relies on from any CRI v1 runtime, checked against each target
 * from cri-contract/targets.ts (containerd through KUBELET_IT_CRI; the embedded runtime). The
 * behaviour asserted is containerd 1.6's, as observed in the lab, which
 * is also what the Go kubelet is written against.
 *
 * Every test removes its pods in afterEach (StopContainer → StopPodSandbox → RemovePodSandbox), and
 * afterAll sweeps anything left with this run's label.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeletError, type KubeletErrorCode } from '../../src/domain/errors.js';
import type { ContainerStatus, CriClient, PodSandboxConfig } from '../../src/ports/cri.js';
import { ignoreNotFound, tearDownPod, tearDownRun } from './cri-contract/cleanup.js';
import {
  containerConfig, IGNORE_TERM_SCRIPT, podConfig, RUN_LABEL, TRAP_TERM_SCRIPT, type ContainerOptions,
} from './cri-contract/fixtures.js';
import { selectCriTargets, type CriTargetHandle } from './cri-contract/targets.js';
import { describeNeeding } from '../support/real-parts.js';
import { askRuntimeCgroupDriver } from '../../src/actors/runtime/runtime-cgroup-driver.js';
import { decideCgroupDriver } from '../../src/domain/runtime/cgroup-driver-agreement.js';
import { CRI_LOG_LINE, readCriLog, waitFor, waitForLogLine } from './cri-contract/waits.js';

const selection = selectCriTargets();

async function expectCode(promise: Promise<unknown>, code: KubeletErrorCode): Promise<KubeletError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(KubeletError);
  expect((err as KubeletError).code).toBe(code);
  return err as KubeletError;
}

const nanos = (s: string): bigint => BigInt(s);

describe('selectCriTargets', () => {
  it('always registers the endpoint target, needing containerd only when KUBELET_IT_CRI is unset', () => {
    const on = selectCriTargets({ KUBELET_IT_CRI: 'unix:///tmp/x.sock', KUBELET_IT_CRI_CGROUP_PARENT: '/p' }, []);
    expect(on.map((g) => [g.target.name, g.target.cgroupParent, g.part.missing])).toEqual([['containerd (unix:///tmp/x.sock)', '/p', '']]);
    const off = selectCriTargets({}, []);
    expect(off.map((g) => g.target.name)).toEqual(['containerd (KUBELET_IT_CRI unset)']);
    expect(off[0]?.part.missing).toMatch(/KUBELET_IT_CRI is unset/);
  });
});

for (const { target, part } of selection) describeNeeding(part, `CRI contract: ${target.name}`, () => {
  const runId = randomUUID().slice(0, 8);
  let handle: CriTargetHandle;
  let cri: CriClient;
  let logRoot: string;
  const podsOfThisTest: string[] = [];

  beforeAll(async () => {
    handle = await target.start();
    cri = handle.cri;
    if (target.logRoot) {
      logRoot = join(target.logRoot, `contract-${runId}`);
    } else {
      logRoot = await mkdtemp(join(tmpdir(), 'kts-cri-contract-'));
    }
    await mkdir(logRoot, { recursive: true });
  });

  afterEach(async () => {
    const errors: unknown[] = [];
    for (const id of podsOfThisTest.splice(0)) await tearDownPod(cri, id).catch((e: unknown) => errors.push(e));
    if (errors.length > 0) throw errors[0];
  });

  afterAll(async () => {
    if (!handle) return;
    try {
      await tearDownRun(cri, runId);
    } finally {
      await handle.stop();
      // The runtime never deletes logs (the kubelet owns them); the suite does.
      await rm(logRoot, { recursive: true, force: true });
    }
  });

  interface Pod { id: string; config: PodSandboxConfig }
  interface Ctr { id: string; logPath: string }

  async function newPod(labels?: Record<string, string>, annotations?: Record<string, string>): Promise<Pod> {
    const config = podConfig({ runId, logRoot, cgroupParent: target.cgroupParent, labels, annotations });
    const id = await cri.runtime.runPodSandbox(config);
    podsOfThisTest.push(id);
    return { id, config };
  }

  async function newContainer(pod: Pod, opts: Omit<ContainerOptions, 'image'>): Promise<Ctr> {
    const config = containerConfig({ ...opts, image: target.image });
    const id = await cri.runtime.createContainer(pod.id, config, pod.config);
    return { id, logPath: join(pod.config.log_directory!, config.log_path!) };
  }

  /** Created, started, and its shell's TERM trap installed (it has logged `ready`). */
  async function readyContainer(pod: Pod, name: string, script = TRAP_TERM_SCRIPT, extra: Partial<ContainerOptions> = {}): Promise<Ctr> {
    const c = await newContainer(pod, { name, script, ...extra });
    await cri.runtime.startContainer(c.id);
    await waitForLogLine(c.logPath, 'ready');
    return c;
  }

  async function statusOf(id: string): Promise<ContainerStatus> {
    const res = await cri.runtime.containerStatus(id);
    expect(res.status).not.toBeNull();
    return res.status!;
  }

  async function exitedStatus(id: string, timeoutMs = 10_000): Promise<ContainerStatus> {
    return waitFor(`container ${id} to exit`, async () => {
      const s = await statusOf(id);
      return s.state === 'CONTAINER_EXITED' ? s : undefined;
    }, timeoutMs);
  }

  /** Runs a script to completion and returns its log's contents, line by line. */
  async function runToCompletion(opts: Omit<ContainerOptions, 'image'>): Promise<{ lines: string[]; status: ContainerStatus }> {
    const pod = await newPod();
    const c = await newContainer(pod, opts);
    await cri.runtime.startContainer(c.id);
    const status = await exitedStatus(c.id);
    const lines = (await readCriLog(c.logPath)).map((l) => l.content);
    return { lines, status };
  }

  // ------------------------------------------------------------------ version, status, images

  describe('runtime', () => {
    it('answers Version with a runtime name and version and the v1 API', async () => {
      const v = await cri.runtime.version();
      expect(v.runtime_name).not.toBe('');
      expect(v.runtime_version).not.toBe('');
      expect(v.runtime_api_version).toBe('v1');
    });

    it('reports RuntimeReady and NetworkReady in Status', async () => {
      const res = await cri.runtime.status();
      const conditions = Object.fromEntries((res.status?.conditions ?? []).map((c) => [c.type, c.status]));
      expect(conditions).toMatchObject({ RuntimeReady: true, NetworkReady: true });
    });

    it("answers RuntimeConfig as its driver is: containerd 1.6 UNIMPLEMENTED, so the configured one stands; the embedded runtime cgroupfs", async () => {
      const sleeps: number[] = [];
      const answer = await askRuntimeCgroupDriver(cri.runtime, async (ms) => { sleeps.push(ms); });
      expect(sleeps).toEqual([]);
      if (target.name.startsWith('containerd')) {
        await expectCode(cri.runtime.runtimeConfig!(), 'KLT_ERR_CRI_UNIMPLEMENTED');
        expect(answer).toBe('unimplemented');
        expect(decideCgroupDriver('systemd', answer)).toEqual({ cgroupDriver: 'systemd', from: 'configuration' });
      } else {
        expect(answer).toEqual({ cgroupDriver: 'CGROUPFS' });
        expect(decideCgroupDriver('systemd', answer)).toBeInstanceOf(Error);
      }
    });
  });

  describe('images', () => {
    it('returns the status of a present image with its id, tag and size', async () => {
      const res = await cri.images.imageStatus({ image: target.image });
      expect(res.image).not.toBeNull();
      expect(res.image!.id).toMatch(/\S/);
      expect(res.image!.repo_tags).toContain(target.image);
      expect(nanos(res.image!.size)).toBeGreaterThan(0n);
    });

    it('returns a null image, not an error, for an absent image', async () => {
      const res = await cri.images.imageStatus({ image: 'kubelet-ts.local/absent:0.0.1' });
      expect(res.image).toBeNull();
    });

    it('lists the test image among the images', async () => {
      const images = await cri.images.listImages();
      expect(images.some((i) => i.repo_tags.includes(target.image))).toBe(true);
    });

    it('reports at least one image filesystem with a mount point and usage', async () => {
      const res = await cri.images.imageFsInfo();
      expect(res.image_filesystems.length).toBeGreaterThan(0);
      const fs = res.image_filesystems[0]!;
      expect(fs.fs_id?.mountpoint).toMatch(/^\//);
      expect(nanos(fs.timestamp)).toBeGreaterThan(0n);
      expect(fs.used_bytes).not.toBeNull();
    });
  });

  // ------------------------------------------------------------------ sandboxes

  describe('pod sandboxes', () => {
    it('runs a sandbox that is READY and echoes its metadata, labels and annotations', async () => {
      const pod = await newPod({ app: 'echo' }, { note: 'kept as given' });
      const res = await cri.runtime.podSandboxStatus(pod.id);
      const s = res.status!;
      expect(s.id).toBe(pod.id);
      expect(s.state).toBe('SANDBOX_READY');
      expect(s.metadata).toEqual(pod.config.metadata);
      expect(s.labels).toMatchObject({ app: 'echo', [RUN_LABEL]: runId });
      expect(s.annotations).toMatchObject({ note: 'kept as given' });
      expect(s.created_at).toMatch(/^[1-9]\d{15,}$/); // nanoseconds, every digit kept
    });

    it('makes a stopped sandbox NOTREADY', async () => {
      const pod = await newPod();
      await cri.runtime.stopPodSandbox(pod.id);
      expect((await cri.runtime.podSandboxStatus(pod.id)).status!.state).toBe('SANDBOX_NOTREADY');
    });

    it('forgets a removed sandbox: Status is NOT_FOUND and List omits it', async () => {
      const pod = await newPod();
      await cri.runtime.stopPodSandbox(pod.id);
      await cri.runtime.removePodSandbox(pod.id);
      await expectCode(cri.runtime.podSandboxStatus(pod.id), 'KLT_ERR_CRI_NOT_FOUND');
      expect((await cri.runtime.listPodSandbox()).map((p) => p.id)).not.toContain(pod.id);
    });

    it('stops a stopped sandbox again without error', async () => {
      const pod = await newPod();
      await cri.runtime.stopPodSandbox(pod.id);
      await expect(cri.runtime.stopPodSandbox(pod.id)).resolves.toBeUndefined();
      expect((await cri.runtime.podSandboxStatus(pod.id)).status!.state).toBe('SANDBOX_NOTREADY');
    });

    it('removes an already removed or never known sandbox without error', async () => {
      const pod = await newPod();
      await cri.runtime.stopPodSandbox(pod.id);
      await cri.runtime.removePodSandbox(pod.id);
      await expect(cri.runtime.removePodSandbox(pod.id)).resolves.toBeUndefined();
      await expect(cri.runtime.removePodSandbox('f'.repeat(64))).resolves.toBeUndefined();
    });

    it('stops a missing sandbox without error or with KLT_ERR_CRI_NOT_FOUND, never another failure', async () => {
      // CRI says StopPodSandbox is idempotent; containerd 1.6 answers NOT_FOUND for ids it no longer
      // knows, and the Go kubelet ignores NOT_FOUND there. Either answer means "nothing to stop".
      const pod = await newPod();
      await cri.runtime.stopPodSandbox(pod.id);
      await cri.runtime.removePodSandbox(pod.id);
      await expect(ignoreNotFound(cri.runtime.stopPodSandbox(pod.id))).resolves.toBeUndefined();
      await expect(ignoreNotFound(cri.runtime.stopPodSandbox('f'.repeat(64)))).resolves.toBeUndefined();
    });

    it('answers PodSandboxStatus of an unknown id with KLT_ERR_CRI_NOT_FOUND', async () => {
      await expectCode(cri.runtime.podSandboxStatus('e'.repeat(64)), 'KLT_ERR_CRI_NOT_FOUND');
    });

    it('filters ListPodSandbox by id', async () => {
      const a = await newPod();
      await newPod();
      expect((await cri.runtime.listPodSandbox({ id: a.id })).map((p) => p.id)).toEqual([a.id]);
    });

    it('filters ListPodSandbox by state', async () => {
      const ready = await newPod();
      const stopped = await newPod();
      await cri.runtime.stopPodSandbox(stopped.id);
      const mine = { label_selector: { [RUN_LABEL]: runId } };
      const readyIds = (await cri.runtime.listPodSandbox({ ...mine, state: { state: 'SANDBOX_READY' } })).map((p) => p.id);
      const notReadyIds = (await cri.runtime.listPodSandbox({ ...mine, state: { state: 'SANDBOX_NOTREADY' } })).map((p) => p.id);
      expect(readyIds).toContain(ready.id);
      expect(readyIds).not.toContain(stopped.id);
      expect(notReadyIds).toContain(stopped.id);
      expect(notReadyIds).not.toContain(ready.id);
    });

    it('filters ListPodSandbox by label selector, all labels ANDed', async () => {
      const both = await newPod({ tier: 'web', track: 'stable' });
      await newPod({ tier: 'web', track: 'canary' });
      await newPod({ tier: 'db', track: 'stable' });
      const found = await cri.runtime.listPodSandbox({ label_selector: { [RUN_LABEL]: runId, tier: 'web', track: 'stable' } });
      expect(found.map((p) => p.id)).toEqual([both.id]);
      expect(found[0]!.metadata).toEqual(both.config.metadata);
    });
  });

  // ------------------------------------------------------------------ containers

  describe('containers', () => {
    it('creates a container in CREATED state with no start time', async () => {
      const pod = await newPod();
      const c = await newContainer(pod, { name: 'created', script: 'exit 0' });
      const s = await statusOf(c.id);
      expect(s.state).toBe('CONTAINER_CREATED');
      expect(s.started_at).toBe('0');
      expect(s.metadata).toEqual({ name: 'created', attempt: 0 });
    });

    it('starts a container into RUNNING with a start time after its creation', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'running');
      const s = await statusOf(c.id);
      expect(s.state).toBe('CONTAINER_RUNNING');
      expect(nanos(s.started_at)).toBeGreaterThanOrEqual(nanos(s.created_at));
      expect(s.finished_at).toBe('0');
    });

    it('reports exit code 0 with reason Completed', async () => {
      const { status } = await runToCompletion({ name: 'ok', script: 'echo done; exit 0' });
      expect(status.exit_code).toBe(0);
      expect(status.reason).toBe('Completed');
      // Not ≥ started_at: containerd stamps started_at after the start call returns, which can be
      // after a short process has already exited (seen: finished_at 134 µs before started_at).
      expect(nanos(status.finished_at)).toBeGreaterThan(nanos(status.created_at));
    });

    it('reports a non-zero exit code with reason Error', async () => {
      const { status } = await runToCompletion({ name: 'fail', script: 'echo bye; exit 3' });
      expect(status.exit_code).toBe(3);
      expect(status.reason).toBe('Error');
    });

    it('echoes labels, annotations and the full log path in ContainerStatus and ListContainers', async () => {
      const pod = await newPod();
      const c = await newContainer(pod, { name: 'meta', script: 'exit 0', labels: { role: 'meta' }, annotations: { 'a/b': 'c d' } });
      const s = await statusOf(c.id);
      expect(s.labels).toEqual({ role: 'meta' });
      expect(s.annotations).toEqual({ 'a/b': 'c d' });
      expect(s.log_path).toBe(c.logPath);
      const [listed] = await cri.runtime.listContainers({ id: c.id });
      expect(listed).toMatchObject({ id: c.id, pod_sandbox_id: pod.id, labels: { role: 'meta' }, metadata: { name: 'meta' } });
    });

    it('stops a container whose shell traps SIGTERM within a second or two, exit code 0', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'trap');
      const started = Date.now();
      await cri.runtime.stopContainer(c.id, 30);
      expect(Date.now() - started).toBeLessThan(5_000);
      const s = await statusOf(c.id);
      expect(s.state).toBe('CONTAINER_EXITED');
      expect(s.exit_code).toBe(0);
    });

    it('kills a container that ignores SIGTERM once the grace period is over (exit 137)', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'stubborn', IGNORE_TERM_SCRIPT);
      const started = Date.now();
      await cri.runtime.stopContainer(c.id, 2);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(1_900);
      expect(elapsed).toBeLessThan(10_000);
      const s = await statusOf(c.id);
      expect(s.state).toBe('CONTAINER_EXITED');
      expect(s.exit_code).toBe(137);
    });

    it('forgets a removed container: Status is NOT_FOUND and List omits it', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'removed');
      await cri.runtime.stopContainer(c.id, 2);
      await cri.runtime.removeContainer(c.id);
      await expectCode(cri.runtime.containerStatus(c.id), 'KLT_ERR_CRI_NOT_FOUND');
      expect(await cri.runtime.listContainers({ pod_sandbox_id: pod.id })).toEqual([]);
    });

    it('stops an exited container again without error', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'stop-twice');
      await cri.runtime.stopContainer(c.id, 2);
      await expect(cri.runtime.stopContainer(c.id, 2)).resolves.toBeUndefined();
      expect((await statusOf(c.id)).state).toBe('CONTAINER_EXITED');
    });

    it('removes an already removed or never known container without error', async () => {
      const pod = await newPod();
      const c = await newContainer(pod, { name: 'twice', script: 'exit 0' });
      await cri.runtime.removeContainer(c.id);
      await expect(cri.runtime.removeContainer(c.id)).resolves.toBeUndefined();
      await expect(cri.runtime.removeContainer('d'.repeat(64))).resolves.toBeUndefined();
    });

    it('stops a missing container without error or with KLT_ERR_CRI_NOT_FOUND, never another failure', async () => {
      // As for sandboxes: containerd 1.6 answers NOT_FOUND, the Go kubelet's killContainer ignores it.
      const pod = await newPod();
      const c = await newContainer(pod, { name: 'gone', script: 'exit 0' });
      await cri.runtime.removeContainer(c.id);
      await expect(ignoreNotFound(cri.runtime.stopContainer(c.id, 0))).resolves.toBeUndefined();
      await expect(ignoreNotFound(cri.runtime.stopContainer('d'.repeat(64), 0))).resolves.toBeUndefined();
    });

    it('answers ContainerStatus of an unknown id with KLT_ERR_CRI_NOT_FOUND', async () => {
      await expectCode(cri.runtime.containerStatus('c'.repeat(64)), 'KLT_ERR_CRI_NOT_FOUND');
    });

    it('removes the containers of a removed sandbox', async () => {
      const pod = await newPod();
      const running = await readyContainer(pod, 'inside');
      const created = await newContainer(pod, { name: 'never-started', script: 'exit 0' });
      await cri.runtime.stopContainer(running.id, 2);
      await cri.runtime.stopPodSandbox(pod.id);
      await cri.runtime.removePodSandbox(pod.id);
      expect(await cri.runtime.listContainers({ pod_sandbox_id: pod.id })).toEqual([]);
      await expectCode(cri.runtime.containerStatus(running.id), 'KLT_ERR_CRI_NOT_FOUND');
      await expectCode(cri.runtime.containerStatus(created.id), 'KLT_ERR_CRI_NOT_FOUND');
    });

    it('kills the running containers of a stopped sandbox', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'killed-with-pod');
      await cri.runtime.stopPodSandbox(pod.id);
      expect((await exitedStatus(c.id)).state).toBe('CONTAINER_EXITED');
    });
  });

  describe('ListContainers filters', () => {
    async function threeContainers(): Promise<{ pod: Pod; other: Pod; a: Ctr; b: Ctr; c: Ctr }> {
      const pod = await newPod();
      const other = await newPod();
      const a = await readyContainer(pod, 'a', TRAP_TERM_SCRIPT, { labels: { role: 'x', shard: '1' } });
      const b = await newContainer(pod, { name: 'b', script: 'exit 0', labels: { role: 'x', shard: '2' } });
      const c = await newContainer(other, { name: 'c', script: 'exit 0', labels: { role: 'y', shard: '1' } });
      return { pod, other, a, b, c };
    }

    it('filters by id', async () => {
      const { b } = await threeContainers();
      expect((await cri.runtime.listContainers({ id: b.id })).map((c) => c.id)).toEqual([b.id]);
    });

    it('filters by state', async () => {
      const { pod, a, b } = await threeContainers();
      const running = await cri.runtime.listContainers({ pod_sandbox_id: pod.id, state: { state: 'CONTAINER_RUNNING' } });
      const created = await cri.runtime.listContainers({ pod_sandbox_id: pod.id, state: { state: 'CONTAINER_CREATED' } });
      expect(running.map((c) => c.id)).toEqual([a.id]);
      expect(created.map((c) => c.id)).toEqual([b.id]);
    });

    it('filters by sandbox id', async () => {
      const { pod, other, a, b, c } = await threeContainers();
      expect((await cri.runtime.listContainers({ pod_sandbox_id: pod.id })).map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
      expect((await cri.runtime.listContainers({ pod_sandbox_id: other.id })).map((x) => x.id)).toEqual([c.id]);
    });

    it('filters by label selector, all labels ANDed', async () => {
      const { a, c } = await threeContainers();
      expect((await cri.runtime.listContainers({ label_selector: { role: 'x', shard: '1' } })).map((x) => x.id)).toEqual([a.id]);
      expect((await cri.runtime.listContainers({ label_selector: { shard: '1', role: 'y' } })).map((x) => x.id)).toEqual([c.id]);
    });
  });

  // ------------------------------------------------------------------ logs, env, working dir

  describe('container process', () => {
    it('writes stdout and stderr to log_directory/log_path in the CRI log format', async () => {
      const pod = await newPod();
      const c = await newContainer(pod, { name: 'logger', script: 'echo hello out; echo hello err >&2; exit 0' });
      await cri.runtime.startContainer(c.id);
      await exitedStatus(c.id);
      const raw = await waitForLogLine(c.logPath, 'hello err');
      expect(c.logPath).toBe(join(pod.config.log_directory!, 'logger', '0.log'));
      expect(raw).toEqual(expect.arrayContaining([
        expect.objectContaining({ stream: 'stdout', tag: 'F', content: 'hello out' }),
        expect.objectContaining({ stream: 'stderr', tag: 'F', content: 'hello err' }),
      ]));
      for (const line of raw) expect(`${line.time} ${line.stream} ${line.tag} ${line.content}`).toMatch(CRI_LOG_LINE);
      // RFC 3339 in UTC with sub-second precision, as containerd writes it.
      expect(raw[0]!.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/);
    });

    it('passes env values with $, quotes, =, spaces and unicode through byte for byte', async () => {
      const envs = {
        DOLLAR: '$HOME $(echo no) ${PATH} $$',
        QUOTES: `it's "quoted" \\ back`,
        EQUALS: 'a=b=c',
        UNICODE: 'héllo wörld → 世界 🚀',
        EMPTY: '',
      };
      const script = Object.keys(envs).map((k) => `printf '%s=[%s]\\n' ${k} "$${k}"`).join('; ');
      const { lines } = await runToCompletion({ name: 'env', script, envs });
      expect(lines).toEqual(Object.entries(envs).map(([k, v]) => `${k}=[${v}]`));
    });

    it('runs the process in the requested working directory', async () => {
      const { lines, status } = await runToCompletion({ name: 'cwd', script: 'pwd', workingDir: '/tmp' });
      expect(status.exit_code).toBe(0);
      expect(lines).toEqual(['/tmp']);
    });

    it('reopens the log of a running container', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'reopen');
      await expect(cri.runtime.reopenContainerLog!(c.id)).resolves.toBeUndefined();
      expect((await statusOf(c.id)).state).toBe('CONTAINER_RUNNING');
    });
  });

  // ------------------------------------------------------------------ exec

  describe('ExecSync', () => {
    it('returns stdout, stderr and the exit code of the command', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'exec');
      const res = await cri.runtime.execSync(c.id, ['sh', '-c', 'echo exec-ok; echo to-stderr >&2; exit 7'], 10);
      expect(res.stdout.toString()).toBe('exec-ok\n');
      expect(res.stderr.toString()).toBe('to-stderr\n');
      expect(res.exit_code).toBe(7);
    });

    it('sees the container environment', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'exec-env', TRAP_TERM_SCRIPT, { envs: { GREETING: 'grüß $dich' } });
      const res = await cri.runtime.execSync(c.id, ['sh', '-c', 'printf %s "$GREETING"'], 10);
      expect(res.stdout.toString('utf8')).toBe('grüß $dich');
      expect(res.exit_code).toBe(0);
    });

    it('fails with KLT_ERR_CRI_DEADLINE when the command outlives its timeout', async () => {
      const pod = await newPod();
      const c = await readyContainer(pod, 'exec-timeout');
      const started = Date.now();
      // A command that outlives the 1 s timeout by far: what is tested is that the call ends at the
      // timeout, not that the command runs 30 s.
      await expectCode(cri.runtime.execSync(c.id, ['sleep', '30'], 1), 'KLT_ERR_CRI_DEADLINE');
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('answers ExecSync in an unknown container with KLT_ERR_CRI_NOT_FOUND', async () => {
      await expectCode(cri.runtime.execSync('b'.repeat(64), ['true'], 5), 'KLT_ERR_CRI_NOT_FOUND');
    });
  });
});
