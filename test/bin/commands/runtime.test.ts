import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCriClient } from '../../../src/adapters/cri-grpc/index.js';
import { DEFAULT_RUNTIME_STATE_DIR, parseServeFlags, runRuntimeCommand } from '../../../src/bin/commands/runtime.js';
import { TextFeed } from '../../support/text-feed.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const errFeed = new TextFeed();
  let handler: ((signal: string) => void) | undefined;
  let unsubscribed = false;
  return {
    out, err,
    io: {
      stdout: (s: string) => void out.push(s),
      stderr: (s: string) => { err.push(s); errFeed.push(s); },
      onSignal: (h: (signal: string) => void) => {
        handler = h;
        return () => { unsubscribed = true; };
      },
    },
    signal: (name: string) => handler?.(name),
    /** Resolves when stderr says `needle`; fails if the command (`ended`) returns first. */
    saysOnStderr: (needle: string, ended: Promise<unknown>) => errFeed.waitFor(needle, JSON.stringify(needle), { ended, timeoutMs: 10_000 }),
    get unsubscribed() { return unsubscribed; },
  };
}

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-runtime-cmd-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('parseServeFlags', () => {
  it('takes --flag value and --flag=value forms, with the default state dir', () => {
    expect(parseServeFlags(['--listen', 'unix:///run/x.sock'])).toEqual({ listen: 'unix:///run/x.sock', stateDir: DEFAULT_RUNTIME_STATE_DIR, verbosity: 0 });
    expect(parseServeFlags(['--listen=unix:///run/x.sock', '--state-dir=/s', '--v=3'])).toEqual({ listen: 'unix:///run/x.sock', stateDir: '/s', verbosity: 3 });
  });
});

describe('runRuntimeCommand', () => {
  it.each([
    [[], /missing subcommand/],
    [['start'], /unknown subcommand "start"/],
    [['serve'], /--listen is required/],
    [['serve', '--listen', '/tmp/x.sock'], /unix:\/\/\//],
    [['serve', '--listen', 'unix:///tmp/x.sock', '--bogus'], /unknown flag: --bogus/],
    [['serve', '--listen', 'unix:///tmp/x.sock', 'extra'], /unexpected argument: extra/],
    [['serve', '--listen'], /flag needs a value: --listen/],
    [['serve', '--listen', 'unix:///tmp/x.sock', '--v', 'loud'], /--v must be/],
  ])('rejects %j with exit 2 and the usage', async (argv, message) => {
    const c = capture();
    expect(await runRuntimeCommand(argv, c.io)).toBe(2);
    expect(c.err.join('')).toMatch(message);
    expect(c.err.join('')).toContain('Usage: kubelet-ts runtime serve');
  });

  it('prints the usage for --help', async () => {
    const c = capture();
    expect(await runRuntimeCommand(['--help'], c.io)).toBe(0);
    expect(c.out.join('')).toContain('--state-dir DIR');
  });

  it('serves CRI on the socket until SIGTERM, then closes it and exits 0', async () => {
    const c = capture();
    const socket = join(dir, 'cri.sock');
    const exit = runRuntimeCommand(['serve', '--listen', `unix://${socket}`, '--state-dir', join(dir, 'state')], c.io);
    await c.saysOnStderr('serving CRI', exit);
    const cri = createCriClient({ endpoint: `unix://${socket}` });
    expect((await cri.runtime.version()).runtime_name).toBe('kubelet-ts-embedded');
    cri.close();
    c.signal('SIGTERM');
    expect(await exit).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(c.unsubscribed).toBe(true);
    // The runtime's own log lines (pino JSON) go through io.stderr too.
    const logged = c.err.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string });
    expect(logged.map((l) => l.msg)).toContain('Embedded CRI runtime stopped');
  });

  it('exits 1 when the runtime cannot start (state dir held by another runtime)', async () => {
    const first = capture();
    const stateDir = join(dir, 'state');
    const running = runRuntimeCommand(['serve', '--listen', `unix://${join(dir, 'a.sock')}`, '--state-dir', stateDir], first.io);
    await first.saysOnStderr('serving CRI', running);
    const second = capture();
    expect(await runRuntimeCommand(['serve', '--listen', `unix://${join(dir, 'b.sock')}`, '--state-dir', stateDir], second.io)).toBe(1);
    expect(second.err.join('')).toMatch(/cannot start: .*in use/);
    first.signal('SIGINT');
    expect(await running).toBe(0);
  });
});
