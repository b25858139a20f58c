/**
 * The embedded runtime's mounts end to end: a real gRPC server, real mount namespaces (unshare,
 * mount, nsenter), real host processes. Needs root, as the runtime does to apply mounts; without it
 * only the refusal runs. Every test stops what it started and unmounts what it mounted on the host.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCriClient, type GrpcCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../../../src/adapters/embedded-runtime/index.js';
import type { Mount as CriMount } from '../../../../src/generated/runtime/v1/Mount.js';
import type { ContainerConfig, PodSandboxConfig } from '../../../../src/ports/cri.js';
import { isAlive, tearDownEmbedded } from '../embedded-teardown.js';
import { warmUpEmbeddedRuntime, WARM_UP_TIMEOUT_MS } from '../embedded-warm-up.js';

const BUSYBOX = 'kubelet-ts.local/busybox:1.0';
// Idles until SIGTERM; the sleep is its loop's step, not a wait of the test's.
const TRAPPING = `trap "exit 0" TERM; echo ready; while :; do sleep 3600 & wait $!; done`;
const isRoot = process.getuid?.() === 0;

let dir: string;
let stateDir: string;
let logDir: string;
let runtime: EmbeddedRuntime | undefined;
let client: GrpcCriClient | undefined;
const pids = new Set<number>();
/** Host mounts a test made, unmounted (lazily, deepest first) after it. */
const hostMounts: string[] = [];

async function start(): Promise<GrpcCriClient> {
  runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir });
  client = createCriClient({ endpoint: runtime.endpoint });
  return client;
}

async function restart(): Promise<GrpcCriClient> {
  client?.close();
  await runtime?.close();
  return start();
}

function sandboxConfig(name: string): PodSandboxConfig {
  return { metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 }, log_directory: join(logDir, name) };
}

function containerConfig(name: string, script: string, mounts: CriMount[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return { metadata: { name, attempt: 0 }, image: { image: BUSYBOX }, command: ['sh', '-c', script], log_path: `${name}/0.log`, mounts, ...extra };
}

async function create(cri: GrpcCriClient, pod: string, script: string, mounts: CriMount[], extra: Partial<ContainerConfig> = {}) {
  const config = sandboxConfig(pod);
  const sandboxId = await cri.runtime.runPodSandbox(config);
  const containerId = await cri.runtime.createContainer(sandboxId, containerConfig('main', script, mounts, extra), config);
  return { sandboxId, containerId, logPath: join(logDir, pod, 'main', '0.log') };
}

async function run(cri: GrpcCriClient, pod: string, script: string, mounts: CriMount[], extra: Partial<ContainerConfig> = {}) {
  const created = await create(cri, pod, script, mounts, extra);
  await cri.runtime.startContainer(created.containerId);
  return { ...created, pid: await pidOf(cri, created.containerId) };
}

async function pidOf(cri: GrpcCriClient, containerId: string): Promise<number> {
  const verbose = await cri.runtime.containerStatus(containerId, true);
  const info = JSON.parse(verbose.info.info ?? '{}') as { pid: number; shimPid: number };
  pids.add(info.pid);
  pids.add(info.shimPid);
  return info.pid;
}

async function logLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '').map((l) => l.replace(/^\S+ \S+ \S /, ''));
  } catch {
    return [];
  }
}

/** The log's lines (content only) once one is `last`. */
async function waitForLog(path: string, last: string): Promise<string[]> {
  let lines: string[] = [];
  await vi.waitFor(async () => {
    lines = await logLines(path);
    expect(lines).toContain(last);
  }, { timeout: 5000, interval: 25 });
  return lines;
}

async function waitForExit(cri: GrpcCriClient, containerId: string) {
  let status;
  await vi.waitFor(async () => {
    status = (await cri.runtime.containerStatus(containerId)).status;
    expect(status?.state).toBe('CONTAINER_EXITED');
  }, { timeout: 5000, interval: 25 });
  return status!;
}

/** Mount points in the given (host) mount table at or below `path`. */
function mountedAt(path: string, mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): string[] {
  return mountinfo.split('\n').map((l) => l.split(' ')[4] ?? '').filter((m) => m === path || m.startsWith(`${path}/`));
}

async function makeTree(): Promise<{ data: string; target: string }> {
  const data = join(dir, 'data');
  const target = join(dir, 'target');
  await mkdir(data);
  await mkdir(target);
  await writeFile(join(data, 'in-volume'), 'from the host\n');
  return { data, target };
}

beforeAll(warmUpEmbeddedRuntime, WARM_UP_TIMEOUT_MS);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-mounts-'));
  stateDir = join(dir, 'state');
  logDir = join(dir, 'logs');
  pids.clear();
});

afterEach(async () => {
  const leftovers = await tearDownEmbedded(client, runtime, pids);
  client = undefined;
  runtime = undefined;
  for (const path of hostMounts.splice(0).reverse()) execFileSync('umount', ['-l', path]);
  await rm(dir, { recursive: true, force: true });
  expect(leftovers).toEqual([]);
});

describe.runIf(!isRoot)('embedded runtime mounts without root', () => {
  it('refuses a container with mounts at CreateContainer, naming the mount', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const err = await create(cri, 'noroot', 'true', [{ host_path: data, container_path: target }]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' });
    expect((err as Error).message).toContain(data);
    expect((err as Error).message).toContain(target);
  });
});

describe.runIf(isRoot)('embedded runtime mounts', () => {
  it('binds a directory read-write and read-only: the host sees the writes, the read-only one fails with EROFS', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const roTarget = join(dir, 'ro-target');
    await mkdir(roTarget);
    const script = `cat ${target}/in-volume; echo written > ${target}/from-container && echo rw-ok; `
      + `(echo nope > ${roTarget}/x) 2>&1 | grep -q 'Read-only file system' && echo erofs; cat ${roTarget}/in-volume; echo done`;
    const { containerId, logPath } = await run(cri, 'rw', script, [
      { host_path: data, container_path: target },
      { host_path: data, container_path: roTarget, readonly: true },
    ]);
    expect(await waitForLog(logPath, 'done')).toEqual(['from the host', 'rw-ok', 'erofs', 'from the host', 'done']);
    expect(await readFile(join(data, 'from-container'), 'utf8')).toBe('written\n');
    expect(existsSync(join(data, 'x'))).toBe(false);
    // The host's own directories were never mounted over.
    expect(existsSync(join(target, 'in-volume'))).toBe(false);
    expect(await waitForExit(cri, containerId)).toMatchObject({ exit_code: 0, reason: 'Completed' });
  });

  it('binds host paths with a space, a tab and a backslash in one mount(8) call, read-only where asked', async () => {
    const cri = await start();
    const odd = join(dir, 'a dir\twith \\ odd');
    await mkdir(odd);
    await writeFile(join(odd, 'in-volume'), 'odd\n');
    const { data, target } = await makeTree();
    const oddTarget = join(dir, 'odd target');
    await mkdir(oddTarget);
    const script = `cat '${oddTarget}/in-volume' ${target}/in-volume; (echo nope > '${oddTarget}/x') 2>&1 | grep -q 'Read-only file system' && echo erofs; echo done`;
    const { containerId, logPath } = await run(cri, 'odd', script, [
      { host_path: odd, container_path: oddTarget, readonly: true },
      { host_path: data, container_path: target },
    ]);
    expect(await waitForLog(logPath, 'done')).toEqual(['odd', 'from the host', 'erofs', 'done']);
    expect(await waitForExit(cri, containerId)).toMatchObject({ exit_code: 0, reason: 'Completed' });
  });

  it('reports the mounts back in ContainerStatus, as given', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const mounts: CriMount[] = [{ host_path: data, container_path: target, readonly: true, propagation: 'PROPAGATION_PRIVATE' }];
    const { containerId } = await create(cri, 'status', 'true', mounts);
    const { status } = await cri.runtime.containerStatus(containerId);
    expect(status?.mounts).toEqual([{ host_path: data, container_path: target, readonly: true, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE' }]);
  });

  it('mounts a file over /etc/hosts: the container reads the new content, the host\'s /etc/hosts stays as it was', async () => {
    const before = await readFile('/etc/hosts', 'utf8');
    const cri = await start();
    const hosts = join(dir, 'etc-hosts');
    await writeFile(hosts, '# kubelet-ts test hosts\n10.1.2.3 pod-under-test\n');
    const { containerId, logPath } = await run(cri, 'hosts', `cat /etc/hosts; echo done; ${TRAPPING}`, [
      { host_path: hosts, container_path: '/etc/hosts', readonly: true },
    ]);
    expect(await waitForLog(logPath, 'ready')).toEqual(['# kubelet-ts test hosts', '10.1.2.3 pod-under-test', 'done', 'ready']);
    expect(await readFile('/etc/hosts', 'utf8')).toBe(before);
    expect(mountedAt('/etc/hosts')).toEqual([]);
    await cri.runtime.stopContainer(containerId, 10);
    expect(await readFile('/etc/hosts', 'utf8')).toBe(before);
  });

  it('makes mount points that do not exist on the host: in an overlay for /dev, on the host (recorded) below the state directory\'s ancestors', async () => {
    const cri = await start();
    const message = join(dir, 'termination-message');
    await writeFile(message, '');
    const { data } = await makeTree();
    const logName = `/dev/klt-termination-log-${process.pid}`;
    const deep = join(dir, 'made', 'on', 'host');
    const { containerId, logPath } = await run(cri, 'points', `echo bye > ${logName}; ls ${deep}; ls /dev/null; echo done; ${TRAPPING}`, [
      { host_path: message, container_path: logName },
      { host_path: data, container_path: deep },
    ]);
    expect(await waitForLog(logPath, 'ready')).toEqual(['in-volume', '/dev/null', 'done', 'ready']);
    // The file the kubelet reads the termination message from; nothing appeared in the host's /dev.
    expect(await readFile(message, 'utf8')).toBe('bye\n');
    expect(existsSync(logName)).toBe(false);
    // Below the temp dir (an ancestor of the state dir) no overlay can go: made on the host, and recorded.
    expect(existsSync(deep)).toBe(true);
    const record = JSON.parse(await readFile(join(stateDir, 'containers', `${containerId}.json`), 'utf8')) as { mount_points_created_on_host?: string[] };
    expect(record.mount_points_created_on_host).toEqual([join(dir, 'made')]);
    await cri.runtime.stopContainer(containerId, 10);
    expect(existsSync(logName)).toBe(false);
  });

  it('makes mount points in an overlay with nothing mounted below it, in the same mount(8) call as the binds into it', async () => {
    const cri = await start();
    const { data } = await makeTree();
    const other = await mkdtemp(join(tmpdir(), 'klt-overlay-'));
    try {
      const secret = join(dir, 'secret');
      await mkdir(secret);
      await writeFile(join(secret, 'password'), 'hunter2\n');
      const script = `cat ${other}/conf/app/in-volume ${other}/conf/secret/password; ls ${other}; echo done`;
      const { containerId, logPath } = await run(cri, 'overlaid', script, [
        { host_path: data, container_path: join(other, 'conf', 'app'), readonly: true },
        { host_path: secret, container_path: join(other, 'conf', 'secret'), readonly: true },
      ]);
      expect(await waitForLog(logPath, 'done')).toEqual(['from the host', 'hunter2', 'conf', 'done']);
      expect(await waitForExit(cri, containerId)).toMatchObject({ exit_code: 0, reason: 'Completed' });
      // The mount points were made in the overlay's upper directory, not on the host.
      expect(await readdir(other)).toEqual([]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('keeps the mounts out of the host\'s mount table and out of a second container\'s view', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const { containerId, logPath, pid } = await run(cri, 'first', `ls ${target}; ${TRAPPING}`, [{ host_path: data, container_path: target }]);
    expect(await waitForLog(logPath, 'ready')).toEqual(['in-volume', 'ready']);
    expect(mountedAt(target)).toEqual([]);
    expect(mountedAt(target, await readFile(`/proc/${pid}/mountinfo`, 'utf8'))).toEqual([target]);
    const second = await run(cri, 'second', `ls -A ${target} | wc -l; echo done`, []);
    expect(await waitForLog(second.logPath, 'done')).toEqual(['0', 'done']);
    const third = await run(cri, 'third', `ls -A ${target} | wc -l; echo done`, [{ host_path: join(data, 'in-volume'), container_path: join(dir, 'file-target') }],
      {});
    expect(await waitForLog(third.logPath, 'done')).toEqual(['0', 'done']);
    await cri.runtime.stopContainer(containerId, 10);
  });

  it('runs ExecSync in the container\'s mount namespace and working directory', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const { containerId, logPath } = await run(cri, 'exec', TRAPPING, [{ host_path: data, container_path: target }], {
      working_dir: target,
      envs: [{ key: 'GREETING', value: Buffer.from('hello') }],
    });
    await waitForLog(logPath, 'ready');
    const result = await cri.runtime.execSync(containerId, ['sh', '-c', 'echo "$GREETING $(pwd)"; cat in-volume'], 10);
    expect(result.stdout.toString()).toBe(`hello ${target}\nfrom the host\n`);
    expect(result.exit_code).toBe(0);
    await cri.runtime.stopContainer(containerId, 10);
  });

  it('keeps stop and exit codes: TERM trap → 0, TERM ignored → SIGKILL → 137, exit 3 → 3', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const mounts = [{ host_path: data, container_path: target }];
    const trapping = await run(cri, 'trap', TRAPPING, mounts);
    // Ignores SIGTERM and stays up, so that the stop has to kill it; the test does not wait on the sleep.
    const stubborn = await run(cri, 'stubborn', `trap '' TERM; echo ready; exec sleep 3600`, mounts);
    const three = await run(cri, 'three', 'exit 3', mounts);
    await waitForLog(trapping.logPath, 'ready');
    await waitForLog(stubborn.logPath, 'ready');
    await cri.runtime.stopContainer(trapping.containerId, 10);
    expect((await cri.runtime.containerStatus(trapping.containerId)).status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 0, reason: 'Completed' });
    await cri.runtime.stopContainer(stubborn.containerId, 1);
    expect((await cri.runtime.containerStatus(stubborn.containerId)).status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 137, reason: 'Error' });
    expect(await waitForExit(cri, three.containerId)).toMatchObject({ exit_code: 3, reason: 'Error' });
    expect(isAlive(trapping.pid) || isAlive(stubborn.pid)).toBe(false);
  });

  it('runs as run_as_user with the loader variables handed over after the switch', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const linux = { security_context: { run_as_user: { value: '65534' }, run_as_group: { value: '65534' } } };
    const envs = [{ key: 'LD_LIBRARY_PATH', value: Buffer.from('/nowhere') }, { key: 'dotted.name', value: Buffer.from('kept') }];
    await chmod(dir, 0o755);
    // The environment sh was started with: sh itself keeps no variable whose name is not an identifier.
    const environ = `tr '\\0' '\\n' < /proc/$$/environ | grep -c '^dotted.name=kept$'`;
    const { logPath } = await run(cri, 'user', `echo "$(id -u) $(id -g) $LD_LIBRARY_PATH $(${environ})"; cat ${target}/in-volume; echo done`,
      [{ host_path: data, container_path: target }], { linux, envs });
    expect(await waitForLog(logPath, 'done')).toEqual(['65534 65534 /nowhere 1', 'from the host', 'done']);
  });

  it('adopts a container with mounts after a runtime restart: same pid, same view, stops with its exit code', async () => {
    let cri = await start();
    const { data, target } = await makeTree();
    const { containerId, logPath, pid } = await run(cri, 'adopt', TRAPPING, [{ host_path: data, container_path: target }]);
    await waitForLog(logPath, 'ready');
    cri = await restart();
    expect((await cri.runtime.containerStatus(containerId)).status).toMatchObject({ state: 'CONTAINER_RUNNING' });
    expect(await pidOf(cri, containerId)).toBe(pid);
    expect((await cri.runtime.execSync(containerId, ['ls', target], 10)).stdout.toString()).toBe('in-volume\n');
    await cri.runtime.stopContainer(containerId, 10);
    expect((await cri.runtime.containerStatus(containerId)).status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 0 });
    expect(isAlive(pid)).toBe(false);
  });

  it('follows the host\'s mounts below a HostToContainer mount (a shared one), and not below a private one', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const privateTarget = join(dir, 'private-target');
    await mkdir(privateTarget);
    execFileSync('mount', ['--bind', data, data]);
    hostMounts.push(data);
    execFileSync('mount', ['--make-shared', data]);
    const { containerId, logPath } = await run(cri, 'h2c', TRAPPING, [
      { host_path: data, container_path: target, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
      { host_path: data, container_path: privateTarget },
    ]);
    await waitForLog(logPath, 'ready');
    await mkdir(join(data, 'later'));
    execFileSync('mount', ['-t', 'tmpfs', 'klt-later', join(data, 'later')]);
    hostMounts.push(join(data, 'later'));
    await writeFile(join(data, 'later', 'new'), '');
    expect((await cri.runtime.execSync(containerId, ['ls', join(target, 'later')], 10)).stdout.toString()).toBe('new\n');
    expect((await cri.runtime.execSync(containerId, ['ls', join(privateTarget, 'later')], 10)).stdout.toString()).toBe('');
    await cri.runtime.stopContainer(containerId, 10);
  });

  it.each<[string, (paths: { data: string; target: string; file: string }) => CriMount, string[]]>([
    ['a missing host path', (p) => ({ host_path: join(p.data, 'absent'), container_path: p.target }), ['does not exist']],
    ['a file onto a directory', (p) => ({ host_path: p.file, container_path: p.target }), ['file']],
    ['a directory onto a file', (p) => ({ host_path: p.data, container_path: '/etc/hosts' }), ['directory']],
    ['Bidirectional propagation', (p) => ({ host_path: p.data, container_path: p.target, propagation: 'PROPAGATION_BIDIRECTIONAL' }), ['Bidirectional']],
    ['HostToContainer from a private mount', (p) => ({ host_path: p.data, container_path: p.target, propagation: 'PROPAGATION_HOST_TO_CONTAINER' }), ['shared or a slave']],
    ['a relative container path', (p) => ({ host_path: p.data, container_path: 'relative' }), ['absolute']],
  ])('refuses %s at CreateContainer with INVALID_ARGUMENT naming both paths', async (_what, mount, words) => {
    const cri = await start();
    const { data, target } = await makeTree();
    const file = join(data, 'in-volume');
    const m = mount({ data, target, file });
    const err = await create(cri, 'refused', 'true', [m]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' });
    for (const word of [m.host_path, m.container_path, ...words]) expect((err as Error).message).toContain(word);
    expect(await cri.runtime.listContainers()).toEqual([]);
  });

  it('fails StartContainer with StartError (128) when the host path went away after CreateContainer, or the command is missing', async () => {
    const cri = await start();
    const { data, target } = await makeTree();
    const gone = join(dir, 'gone');
    await mkdir(gone);
    const vanished = await create(cri, 'vanished', 'true', [{ host_path: gone, container_path: target }]);
    await rm(gone, { recursive: true });
    await expect(cri.runtime.startContainer(vanished.containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    const status = (await cri.runtime.containerStatus(vanished.containerId)).status!;
    expect(status).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 128, reason: 'StartError' });
    expect(status.message).toContain(gone);

    const missing = await create(cri, 'nocmd', 'true', [{ host_path: data, container_path: target }], { command: ['no-such-command-klt'] });
    await expect(cri.runtime.startContainer(missing.containerId)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    const noCommand = (await cri.runtime.containerStatus(missing.containerId)).status!;
    expect(noCommand).toMatchObject({ exit_code: 128, reason: 'StartError' });
    expect(noCommand.message).toContain('no-such-command-klt');
  });
});
