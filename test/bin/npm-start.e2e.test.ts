/**
 * The README's first command, as a newcomer runs it: `npm start` in a fresh clone, whose
 * configuration gives relative paths (`--root-dir=.kubelet-ts/root`, `staticPodPath: manifests`).
 * The `hello` pod must run and write its log. Relative paths are resolved once against the working
 * directory; left relative, the embedded runtime's shims (which run in `/`) looked for the pod's
 * files under `/.kubelet-ts/root` and the container was never created.
 *
 * The clone shares this checkout's node_modules and a copy of its build (the build itself has its own
 * tests): what is under test is the start, from another directory than the checkout's.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removePods, until } from '../support/daemon.js';

/** Where examples/kubelet-config.yaml writes the pods' logs. */
const POD_LOGS = '/tmp/kubelet-ts-example/pod-logs';

function helloLogs(): string[] {
  if (!existsSync(POD_LOGS)) return [];
  return readdirSync(POD_LOGS).filter((d) => d.startsWith('default_hello-')).flatMap((d) =>
    readdirSync(join(POD_LOGS, d), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log')).map((f) => join(POD_LOGS, d, f)));
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start in a fresh clone', () => {
  const clone = mkdtempSync(join(tmpdir(), 'kts-npm-start-'));
  let child: ReturnType<typeof spawn> | undefined;
  let output = '';

  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    // npm may exit before the kubelet it started has released the runtime's state dir; the shims left
    // the group (they outlive the kubelet), so an empty group means the kubelet is gone.
    if (child?.pid) await until('the npm start process group to exit', () => !groupAlive(child!.pid!), 30_000, () => output);
    // The pod outlives the kubelet, as in Go: removed through the runtime over the clone's state.
    if (existsSync(join(clone, '.kubelet-ts', 'root', 'embedded-runtime'))) await removePods({ endpoint: 'embedded', rootDir: join(clone, '.kubelet-ts', 'root') });
    rmSync(clone, { recursive: true, force: true });
  }, 60_000);

  it('runs the hello pod and writes its log, with the state under the clone', async () => {
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', process.cwd(), clone]);
    symlinkSync(join(process.cwd(), 'node_modules'), join(clone, 'node_modules'));
    cpSync('dist', join(clone, 'dist'), { recursive: true });
    // Newer than the clone's sources, so npm start finds the build current and does not rebuild.
    const now = new Date(Date.now() + 60_000);
    utimesSync(join(clone, 'dist', 'bundle', 'kubelet.js'), now, now);
    for (const log of helloLogs()) rmSync(log, { force: true });

    child = spawn('npm', ['start'], { cwd: clone, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding('utf8').on('data', (c: string) => { output = (output + c).slice(-20_000); });
    const log = await until('the hello pod\'s log with a line in it', () => helloLogs().find((f) => readFileSync(f, 'utf8').includes(' stdout F ')), 60_000, () => output);
    expect(readFileSync(log, 'utf8')).toMatch(/^\S+ stdout F \S/m);
    expect(output).not.toMatch(/CreateContainerError|the host path does not exist/);
    // Its state is where the README says, under the directory it was started in, and nowhere at /.
    expect(existsSync(join(clone, '.kubelet-ts', 'root', 'pods'))).toBe(true);
    expect(existsSync(join(clone, '.kubelet-ts', 'root', 'device-plugins'))).toBe(true);
    expect(existsSync('/.kubelet-ts')).toBe(false);
  }, 120_000);
});
