/**
 * The embedded runtime end to end: a real gRPC server on a temp unix socket, driven by the project's
 * CRI client, running real host processes. Every test stops what it started.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { createCriClient, type GrpcCriClient } from '../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../../src/adapters/embedded-runtime/index.js';
import { KUBELET_TS_VERSION } from '../../../src/domain/config/version.js';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../../src/domain/runtime/masked-paths.js';
import { hostPodIP } from '../../../src/adapters/embedded-runtime/runtime-service.js';
import { EXIT_FILE } from '../../../src/adapters/embedded-runtime/shim/shim-protocol.js';
import type { ContainerConfig, PodSandboxConfig } from '../../../src/ports/cri.js';
import { isAlive, tearDownEmbedded } from './embedded-teardown.js';
import { warmUpEmbeddedRuntime, WARM_UP_TIMEOUT_MS } from './embedded-warm-up.js';

const BUSYBOX = 'kubelet-ts.local/busybox:1.0';
/** Exits 0 on SIGTERM, prints `ready` once the trap is installed (NOTES §8.7: stop only after that). */
const TRAPPING = `trap "exit 0" TERM; echo ready; while :; do sleep 3600 & wait $!; done`; // the sleep is the idle body; tests wait for `ready`, not on time

let dir: string;
let stateDir: string;
let logDir: string;
let runtime: EmbeddedRuntime | undefined;
let client: GrpcCriClient | undefined;
const pids = new Set<number>();

async function start(): Promise<GrpcCriClient> {
  runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir });
  client = createCriClient({ endpoint: runtime.endpoint });
  return client;
}

/** Closes the runtime, does `whileDown`, and starts a new one on the same stateDir. */
async function restart(whileDown: () => Promise<unknown> = async () => undefined): Promise<GrpcCriClient> {
  client?.close();
  await runtime?.close();
  await whileDown();
  return start();
}

function sandboxConfig(name: string): PodSandboxConfig {
  return {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    log_directory: join(logDir, name),
    labels: { app: name },
  };
}

function containerConfig(name: string, script: string, extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return { metadata: { name, attempt: 0 }, image: { image: BUSYBOX }, command: ['sh', '-c', script], log_path: `${name}/0.log`, ...extra };
}

async function runContainer(cri: GrpcCriClient, pod: string, name: string, script: string, extra: Partial<ContainerConfig> = {}) {
  const config = sandboxConfig(pod);
  const sandboxId = await cri.runtime.runPodSandbox(config);
  const containerId = await cri.runtime.createContainer(sandboxId, containerConfig(name, script, extra), config);
  await cri.runtime.startContainer(containerId);
  const pid = await pidOf(cri, containerId);
  return { sandboxId, containerId, pid, logPath: join(logDir, pod, name, '0.log') };
}

async function processInfo(cri: GrpcCriClient, containerId: string): Promise<{ pid: number; shimPid: number }> {
  const verbose = await cri.runtime.containerStatus(containerId, true);
  const info = JSON.parse(verbose.info.info ?? '{}') as { pid: number; shimPid: number };
  // Both lead their own process group: the afterEach check covers shims too.
  pids.add(info.pid);
  pids.add(info.shimPid);
  return info;
}

async function pidOf(cri: GrpcCriClient, containerId: string): Promise<number> {
  return (await processInfo(cri, containerId)).pid;
}

/** The probe's first defined value (every one used here is truthy); a probe that throws fails at once, as before. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  let timedOut = true;
  const value = await vi.waitUntil(async () => {
    try {
      return (await probe()) ?? false;
    } catch (err) {
      timedOut = false;
      throw err;
    }
  }, { timeout: ms, interval: 25 }).catch((err: unknown) => {
    throw timedOut ? new Error(`timed out waiting for ${what}`) : err;
  });
  return value as T;
}

async function logLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** The log's lines once every one of `contents` ends a line (stdout and stderr are copied apart, in no set order). */
function waitForLog(path: string, ...contents: string[]): Promise<string[]> {
  return waitFor(`${contents.map((c) => JSON.stringify(c)).join(' and ')} in ${path}`, async () => {
    const lines = await logLines(path);
    return contents.every((c) => lines.some((l) => l.endsWith(` ${c}`))) ? lines : undefined;
  });
}

async function waitForExitState(cri: GrpcCriClient, containerId: string) {
  return waitFor('CONTAINER_EXITED', async () => {
    const { status } = await cri.runtime.containerStatus(containerId);
    return status?.state === 'CONTAINER_EXITED' ? status : undefined;
  });
}

beforeAll(warmUpEmbeddedRuntime, WARM_UP_TIMEOUT_MS);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-embedded-'));
  stateDir = join(dir, 'state');
  logDir = join(dir, 'logs');
  pids.clear();
});

afterEach(async () => {
  const leftovers = await tearDownEmbedded(client, runtime, pids);
  client = undefined;
  runtime = undefined;
  await rm(dir, { recursive: true, force: true });
  expect(leftovers).toEqual([]);
});

describe('startEmbeddedRuntime', () => {
  it('answers Version and Status like a ready host-network runtime', async () => {
    const cri = await start();
    expect(runtime!.endpoint).toBe(`unix://${join(dir, 'cri.sock')}`);
    const version = await cri.runtime.version();
    expect(version).toMatchObject({ version: '0.1.0', runtime_name: 'kubelet-ts-embedded', runtime_version: KUBELET_TS_VERSION, runtime_api_version: 'v1' });
    const { status, runtime_handlers } = await cri.runtime.status();
    expect(status?.conditions.map((c) => [c.type, c.status])).toEqual([['RuntimeReady', true], ['NetworkReady', true]]);
    // Its one handler, without user namespaces: the kubelet refuses hostUsers: false before asking.
    expect(runtime_handlers).toEqual([{ name: '', features: { recursive_read_only_mounts: false, user_namespaces: false } }]);
  });

  it('answers RuntimeConfig with the cgroupfs driver: its cgroups are directories it makes under cgroup_parent', async () => {
    const cri = await start();
    expect(await cri.runtime.runtimeConfig!()).toEqual({ cgroup_driver: 'CGROUPFS' });
  });

  it('accepts the pod CIDR the kubelet gives (UpdateRuntimeConfig) and shows it in the verbose Status', async () => {
    const cri = await start();
    const config = async () => JSON.parse((await cri.runtime.status(true)).info.config ?? '{}') as { podCIDR?: string };
    expect((await config()).podCIDR).toBe('');
    await cri.runtime.updateRuntimeConfig!('10.244.1.0/24');
    expect((await config()).podCIDR).toBe('10.244.1.0/24');
  });

  it('runs a container whose output reaches the CRI log file and stops it through its TERM trap', async () => {
    const cri = await start();
    const { sandboxId, containerId, pid, logPath } = await runContainer(cri, 'web', 'main', `echo err-line >&2; ${TRAPPING}`);
    // The stderr line is written first but copied by its own pipe: wait for both, not for stdout alone.
    const lines = await waitForLog(logPath, 'ready', 'err-line');
    expect(lines).toContainEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z stderr F err-line$/));
    expect(lines).toContainEqual(expect.stringMatching(/ stdout F ready$/));

    const sandbox = await cri.runtime.podSandboxStatus(sandboxId);
    // Host network: the sandbox reports the host's own address as the pod IP.
    expect(sandbox.status).toMatchObject({ state: 'SANDBOX_READY', network: { ip: hostPodIP() } });
    const running = await cri.runtime.containerStatus(containerId);
    expect(running.status).toMatchObject({ state: 'CONTAINER_RUNNING', image: { image: BUSYBOX }, log_path: logPath });
    expect(BigInt(running.status!.started_at)).toBeGreaterThan(0n);
    expect(isAlive(pid)).toBe(true);

    const began = Date.now();
    await cri.runtime.stopContainer(containerId, 10);
    expect(Date.now() - began).toBeLessThan(5000);
    const { status } = await cri.runtime.containerStatus(containerId);
    expect(status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 0, reason: 'Completed' });
    expect(BigInt(status!.finished_at)).toBeGreaterThanOrEqual(BigInt(status!.started_at));
    expect(isAlive(pid)).toBe(false);

    // Idempotent, as containerd: stopping and removing again (and unknown ids) succeed.
    await cri.runtime.stopContainer(containerId, 0);
    await cri.runtime.removeContainer(containerId);
    await cri.runtime.removeContainer(containerId);
    await cri.runtime.stopPodSandbox(sandboxId);
    await cri.runtime.removePodSandbox(sandboxId);
    await cri.runtime.removePodSandbox(sandboxId);
    await expect(cri.runtime.containerStatus(containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND' });
    await expect(cri.runtime.podSandboxStatus(sandboxId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND' });
  });

  it.each([
    [0, 'Completed'],
    [3, 'Error'],
  ])('reports exit code %i with reason %s', async (code, reason) => {
    const cri = await start();
    const { containerId } = await runContainer(cri, `exit${code}`, 'main', `echo bye; exit ${code}`);
    const status = await waitForExitState(cri, containerId);
    // The message too: were the status lost, it says why.
    expect(status).toMatchObject({ exit_code: code, reason, message: '' });
  });

  it('SIGKILLs a container that ignores SIGTERM once the timeout has passed (exit 137)', async () => {
    const cri = await start();
    // `exec sleep`: the main process is sleep itself, which has no TERM handler here only because
    // TERM is ignored for it (trap '' is inherited across exec), so only SIGKILL ends it.
    const { containerId, logPath } = await runContainer(cri, 'stubborn', 'main', `trap '' TERM; echo ready; exec sleep 3600`);
    await waitForLog(logPath, 'ready');
    const began = Date.now();
    await cri.runtime.stopContainer(containerId, 1);
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(5000);
    const { status } = await cri.runtime.containerStatus(containerId);
    expect(status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 137, reason: 'Error' });
  });

  it('runs ExecSync in the container environment and maps its timeout to DEADLINE_EXCEEDED', async () => {
    const cri = await start();
    const { containerId, logPath } = await runContainer(cri, 'exec', 'main', TRAPPING, {
      envs: [{ key: 'GREETING', value: Buffer.from('hello') }],
      working_dir: dir,
    });
    await waitForLog(logPath, 'ready');
    const result = await cri.runtime.execSync(containerId, ['sh', '-c', 'echo "$GREETING $(pwd)"; echo to-stderr >&2; exit 7'], 10);
    expect(result.stdout.toString()).toBe(`hello ${dir}\n`);
    // Only the container's environment: PATH, HOSTNAME, HOME and its envs, nothing of ours.
    const env = await cri.runtime.execSync(containerId, ['sh', '-c', 'env | cut -d= -f1 | sort'], 10);
    expect(env.stdout.toString().split('\n').filter((k) => k && k !== 'PWD' && k !== 'SHLVL' && k !== 'OLDPWD')).toEqual(['GREETING', 'HOME', 'HOSTNAME', 'PATH']);
    expect(result.stderr.toString()).toBe('to-stderr\n');
    expect(result.exit_code).toBe(7);
    const began = Date.now();
    // A command longer than the 1 s deadline, so the deadline is what ends it.
    await expect(cri.runtime.execSync(containerId, ['sleep', '30'], 1)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_DEADLINE' });
    expect(Date.now() - began).toBeLessThan(5000);
  });

  it('runs the container and its execs as run_as_user/run_as_group as root, and fails StartContainer without the privilege', async () => {
    const cri = await start();
    const linux = { security_context: { run_as_user: { value: '65534' }, run_as_group: { value: '65534' } } };
    const script = `echo "uid=$(id -u) gid=$(id -g)"; ${TRAPPING}`;
    if (process.getuid!() !== 0) {
      const config = sandboxConfig('user');
      const sandboxId = await cri.runtime.runPodSandbox(config);
      const containerId = await cri.runtime.createContainer(sandboxId, containerConfig('main', script, { linux }), config);
      await expect(cri.runtime.startContainer(containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
      return;
    }
    const { containerId, logPath } = await runContainer(cri, 'user', 'main', script, { linux });
    await waitForLog(logPath, 'uid=65534 gid=65534');
    const exec = await cri.runtime.execSync(containerId, ['id', '-u'], 10);
    expect(exec.stdout.toString()).toBe('65534\n');
    await cri.runtime.stopContainer(containerId, 10);
  });

  it('refuses run_as_username, which would need an image /etc/passwd', async () => {
    const cri = await start();
    const config = sandboxConfig('username');
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const container = containerConfig('c', 'true', { linux: { security_context: { run_as_username: 'app' } } });
    await expect(cri.runtime.createContainer(sandboxId, container, config)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' });
  });

  it('refuses a seccomp filter it cannot install, for a sandbox or a container, and runs Unconfined ones', async () => {
    const cri = await start();
    const filtered = { ...sandboxConfig('seccomp'), linux: { security_context: { seccomp: { profile_type: 'RuntimeDefault' as const } } } };
    await expect(cri.runtime.runPodSandbox(filtered)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('sandbox linux.security_context.seccomp RuntimeDefault is not supported'),
    });
    const config = { ...sandboxConfig('seccomp'), linux: { security_context: { seccomp: { profile_type: 'Unconfined' as const } } } };
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const localhost = containerConfig('c', 'true', { linux: { security_context: { seccomp: { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/audit.json' } } } });
    await expect(cri.runtime.createContainer(sandboxId, localhost, config)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('container linux.security_context.seccomp Localhost "/var/lib/kubelet/seccomp/audit.json"'),
    });
    const unconfined = containerConfig('c', 'true', { linux: { security_context: { seccomp: { profile_type: 'Unconfined' } } } });
    expect(await cri.runtime.createContainer(sandboxId, unconfined, config)).toMatch(/^[0-9a-f]+$/);
  });

  it('refuses over gRPC the security a pod asks for and it cannot apply, and accepts the kubelet\'s defaults', async () => {
    const cri = await start();
    const labelled = { ...sandboxConfig('lsm'), linux: { security_context: { selinux_options: { user: '', role: '', type: 'spc_t', level: '' } } } };
    await expect(cri.runtime.runPodSandbox(labelled)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT', message: expect.stringContaining('sandbox linux.security_context.selinux_options ::spc_t:'),
    });
    const config = sandboxConfig('lsm');
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const profiled = containerConfig('c', 'true', { linux: { security_context: { apparmor_profile: 'localhost/k8s-deny-write' } } });
    await expect(cri.runtime.createContainer(sandboxId, profiled, config)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT', message: expect.stringContaining('container linux.security_context.apparmor "localhost/k8s-deny-write"'),
    });
    const plain = containerConfig('c', 'true', { linux: { security_context: { masked_paths: [...DEFAULT_MASKED_PATHS], readonly_paths: [...DEFAULT_READONLY_PATHS] } } });
    expect(await cri.runtime.createContainer(sandboxId, plain, config)).toMatch(/^[0-9a-f]+$/);
  });

  it('refuses a runtime handler, a user namespace of the pod\'s own and devices, naming the field, and accepts the host\'s namespace', async () => {
    const cri = await start();
    await expect(cri.runtime.runPodSandbox(sandboxConfig('rc'), 'nosuch')).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('runtime_handler "nosuch" is not supported by the embedded runtime'),
    });
    const namespaces = (userns: object) => ({ network: 'NODE' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const, target_id: '', userns_options: userns });
    const mapping = [{ host_id: 65536, container_id: 0, length: 65536 }];
    const own = { ...sandboxConfig('userns'), linux: { security_context: { namespace_options: namespaces({ mode: 'POD', uids: mapping, gids: mapping }) } } };
    await expect(cri.runtime.runPodSandbox(own)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('sandbox linux.security_context.namespace_options.userns_options mode POD is not supported by the embedded runtime'),
    });
    const config = { ...sandboxConfig('userns'), linux: { security_context: { namespace_options: namespaces({ mode: 'NODE' }) } } };
    const sandboxId = await cri.runtime.runPodSandbox(config, '');
    const container = containerConfig('c', 'true', { linux: { security_context: { namespace_options: namespaces({ mode: 'POD', uids: mapping, gids: mapping }) } } });
    await expect(cri.runtime.createContainer(sandboxId, container, config)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('container linux.security_context.namespace_options.userns_options mode POD'),
    });
    const device = containerConfig('c', 'true', { devices: [{ container_path: '/dev/xvda', host_path: '/dev/loop0', permissions: 'mrw' }] });
    await expect(cri.runtime.createContainer(sandboxId, device, config)).rejects.toMatchObject({
      code: 'KLT_ERR_CRI_INVALID_ARGUMENT',
      message: expect.stringContaining('container devices ("/dev/xvda") are not supported by the embedded runtime, whose containers see the host\'s /dev'),
    });
  });

  it('fails CreateContainer with NOT_FOUND for an image that is not present, and finds it after PullImage', async () => {
    const cri = await start();
    const config = sandboxConfig('img');
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const absent = 'example.test/absent:1.0';
    await expect(cri.runtime.createContainer(sandboxId, containerConfig('c', 'true', { image: { image: absent } }), config))
      .rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND' });
    expect((await cri.images.imageStatus({ image: absent })).image).toBeNull();
    const ref = await cri.images.pullImage({ image: absent });
    expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await cri.images.imageStatus({ image: absent })).image).toMatchObject({ id: ref, repo_tags: [absent] });
    expect((await cri.images.listImages()).map((i) => i.repo_tags[0])).toEqual([absent, BUSYBOX, 'kubelet-ts.local/pause:1.0']);
    await cri.images.removeImage({ image: absent });
    await cri.images.removeImage({ image: absent });
    expect((await cri.images.imageStatus({ image: absent })).image).toBeNull();
    const fs = await cri.images.imageFsInfo();
    expect(BigInt(fs.image_filesystems[0]!.used_bytes!.value)).toBeGreaterThan(0n);
  });

  it('fails PullImage with NOT_FOUND, naming the host, for an image on a registry under .invalid, and records nothing', async () => {
    const cri = await start();
    const image = 'registry.invalid:5000/missing:1.0';
    await expect(cri.images.pullImage({ image })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND', message: expect.stringContaining('lookup registry.invalid:5000: no such host') });
    expect((await cri.images.imageStatus({ image })).image).toBeNull();
  });

  it('fails StartContainer with StartError when the working directory does not exist', async () => {
    const cri = await start();
    const config = sandboxConfig('nowd');
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const containerId = await cri.runtime.createContainer(sandboxId, containerConfig('c', 'true', { working_dir: join(dir, 'missing') }), config);
    await expect(cri.runtime.startContainer(containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    const { status } = await cri.runtime.containerStatus(containerId);
    expect(status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 128, reason: 'StartError' });
    expect(status!.message).toContain('working directory');
  });

  it('filters ListPodSandbox and ListContainers by id prefix, state and labels', async () => {
    const cri = await start();
    const a = sandboxConfig('a');
    const b = { ...sandboxConfig('b'), labels: { app: 'b', tier: 'db' } };
    const aId = await cri.runtime.runPodSandbox(a);
    const bId = await cri.runtime.runPodSandbox(b);
    await cri.runtime.stopPodSandbox(bId);
    expect((await cri.runtime.listPodSandbox({ label_selector: { tier: 'db' } })).map((s) => s.id)).toEqual([bId]);
    expect((await cri.runtime.listPodSandbox({ state: { state: 'SANDBOX_READY' } })).map((s) => s.id)).toEqual([aId]);
    expect((await cri.runtime.listPodSandbox({ id: aId.slice(0, 12) })).map((s) => s.id)).toEqual([aId]);
    const c1 = await cri.runtime.createContainer(aId, containerConfig('one', 'true', { labels: { role: 'x' } }), a);
    await cri.runtime.createContainer(aId, containerConfig('two', 'true'), a);
    expect((await cri.runtime.listContainers({ label_selector: { role: 'x' } })).map((c) => c.id)).toEqual([c1]);
    expect((await cri.runtime.listContainers({ pod_sandbox_id: aId, state: { state: 'CONTAINER_CREATED' } }))).toHaveLength(2);
    expect((await cri.runtime.listContainers({ pod_sandbox_id: bId }))).toHaveLength(0);
    // RemovePodSandbox takes its containers with it.
    await cri.runtime.removePodSandbox(aId);
    expect(await cri.runtime.listContainers()).toHaveLength(0);
  });

  it('reopens the container log after the kubelet rotated it', async () => {
    const cri = await start();
    const { containerId, logPath } = await runContainer(cri, 'rotate', 'main',
      // A tick each 0.1 s: the container's pace, so its log keeps growing across the rotation.
      `trap "exit 0" TERM; echo ready; while :; do echo tick; sleep 0.1 & wait $!; done`);
    await waitForLog(logPath, 'ready');
    await rename(logPath, `${logPath}.1`);
    await cri.runtime.reopenContainerLog!(containerId);
    await waitForLog(logPath, 'tick');
    expect((await logLines(`${logPath}.1`))[0]).toMatch(/ stdout F ready$/);
    await cri.runtime.stopContainer(containerId, 5);
    // As containerd: a stopped container's log is not reopened (the log manager rotates running ones only).
    await expect(cri.runtime.reopenContainerLog!(containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
  });

  it('adopts a running container after a restart on the same stateDir, with the same id and pid', async () => {
    let cri = await start();
    const { sandboxId, containerId, pid, logPath } = await runContainer(cri, 'adopt', 'main',
      // Idles until SIGTERM; the sleep is its loop's step, not a wait of the test's.
      `trap "exit 0" TERM; echo ready; while :; do sleep 3600 & wait $!; done`);
    // Finishes when told to, through a FIFO: only once the runtime is down.
    const go = join(dir, 'adopt2.go');
    execFileSync('mkfifo', [go]);
    const { containerId: finishingId } = await runContainer(cri, 'adopt2', 'main', `read line < ${go}; exit 4`);
    await waitForLog(logPath, 'ready');

    cri = await restart(async () => {
      // Blocks until the container has the FIFO open for reading, then ends its read.
      await writeFile(go, 'go\n');
      await waitFor('adopt2 to finish (its shim writes exit.json)', async () => existsSync(join(stateDir, 'shims', finishingId, EXIT_FILE)) || undefined);
    });
    expect(isAlive(pid)).toBe(true);
    expect((await cri.runtime.listPodSandbox({ id: sandboxId })).map((s) => s.state)).toEqual(['SANDBOX_READY']);
    const adopted = await cri.runtime.containerStatus(containerId, true);
    expect(adopted.status).toMatchObject({ id: containerId, state: 'CONTAINER_RUNNING' });
    expect(await pidOf(cri, containerId)).toBe(pid);
    // The container that finished while we were down still has its exit code.
    expect(await waitForExitState(cri, finishingId)).toMatchObject({ exit_code: 4, reason: 'Error' });

    await cri.runtime.stopContainer(containerId, 10);
    expect((await cri.runtime.containerStatus(containerId)).status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 0 });
    expect(isAlive(pid)).toBe(false);
  });

  it('reports exit code 255 for a container whose process and shim were killed while the runtime was down', async () => {
    let cri = await start();
    const { containerId, logPath } = await runContainer(cri, 'lost', 'main', TRAPPING);
    await waitForLog(logPath, 'ready');
    const { pid, shimPid } = await processInfo(cri, containerId);
    client!.close();
    await runtime!.close();
    process.kill(shimPid, 'SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await waitFor('both processes gone', async () => (isAlive(pid) || isAlive(shimPid) ? undefined : true));
    cri = await start();
    expect((await cri.runtime.containerStatus(containerId)).status).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 255,
      reason: 'Error',
      message: expect.stringMatching(new RegExp(`^container process and its shim are gone without an exit status \\(no ${EXIT_FILE}\\)`)),
    });
  });

  it('recovers a container whose start was not yet saved when the runtime stopped (started.json)', async () => {
    let cri = await start();
    const { containerId, pid, logPath } = await runContainer(cri, 'crash', 'main', TRAPPING);
    await waitForLog(logPath, 'ready');
    client!.close();
    await runtime!.close();
    // What the record looks like if the runtime died between launching the shim and saving the record.
    const recordPath = join(stateDir, 'containers', `${containerId}.json`);
    const record = JSON.parse(await readFile(recordPath, 'utf8')) as Record<string, unknown>;
    await writeFile(recordPath, JSON.stringify({ ...record, phase: 'created', started_at: '0', process: undefined, shim: undefined }));
    cri = await start();
    expect((await cri.runtime.containerStatus(containerId)).status).toMatchObject({ state: 'CONTAINER_RUNNING' });
    expect(await pidOf(cri, containerId)).toBe(pid);
    await cri.runtime.stopContainer(containerId, 10);
    expect(isAlive(pid)).toBe(false);
  });

  it('makes sandboxes from an earlier boot NOTREADY on start, as a reboot does to containerd pods', async () => {
    let cri = await start();
    const sandboxId = await cri.runtime.runPodSandbox(sandboxConfig('rebooted'));
    const keptId = await cri.runtime.runPodSandbox(sandboxConfig('same-boot'));
    client!.close();
    await runtime!.close();
    const recordPath = join(stateDir, 'sandboxes', `${sandboxId}.json`);
    const record = JSON.parse(await readFile(recordPath, 'utf8')) as { boot_id: string };
    expect(record.boot_id).toMatch(/\S/);
    await writeFile(recordPath, JSON.stringify({ ...record, boot_id: 'an-earlier-boot' }));
    cri = await start();
    expect((await cri.runtime.podSandboxStatus(sandboxId)).status?.state).toBe('SANDBOX_NOTREADY');
    expect((await cri.runtime.podSandboxStatus(keptId)).status?.state).toBe('SANDBOX_READY');
  });

  it('skips a torn state file on start instead of failing', async () => {
    let cri = await start();
    const sandboxId = await cri.runtime.runPodSandbox(sandboxConfig('keep'));
    client!.close();
    await runtime!.close();
    await writeFile(join(stateDir, 'sandboxes', 'torn.json'), '{"id":"torn","meta');
    cri = await start();
    expect((await cri.runtime.listPodSandbox()).map((s) => s.id)).toEqual([sandboxId]);
  });

  it('answers UNIMPLEMENTED for RPCs it does not serve', async () => {
    await start();
    // Newer than this proto (CRI 1.30's CheckpointContainer): asked by its path, as a newer client would.
    const raw = new grpc.Client(runtime!.endpoint, grpc.credentials.createInsecure());
    const err = await new Promise<grpc.ServiceError | null>((resolve) =>
      raw.makeUnaryRequest('/runtime.v1.RuntimeService/CheckpointContainer', () => Buffer.alloc(0), (b: Buffer) => b, {}, (e) => resolve(e)));
    raw.close();
    expect(err?.code).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('refuses a relative or over-long socket path before touching anything', async () => {
    await expect(startEmbeddedRuntime({ socketPath: 'cri.sock', stateDir })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_ENDPOINT_INVALID' });
    await expect(startEmbeddedRuntime({ socketPath: `/tmp/${'x'.repeat(110)}.sock`, stateDir })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_ENDPOINT_INVALID' });
  });

  it('refuses a second runtime on the same stateDir', async () => {
    await start();
    await expect(startEmbeddedRuntime({ socketPath: join(dir, 'other.sock'), stateDir })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
  });
});
