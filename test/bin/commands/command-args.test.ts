import { describe, expect, it } from 'vitest';
import { parseCommandArgs, UsageError } from '../../../src/bin/commands/command-args.js';
import { runReportCommand } from '../../../src/bin/commands/report.js';
import { runReplayCommand } from '../../../src/bin/commands/replay.js';
import { runVisualizeCommand } from '../../../src/bin/commands/visualize.js';

const FLAGS = { listen: { type: 'string' }, json: { type: 'boolean' }, v: { type: 'string', short: 'v' } } as const;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
}

describe('parseCommandArgs', () => {
  it('reads --flag value, --flag=value, booleans, a short flag and positionals; the last repeat wins', () => {
    const { values, positionals } = parseCommandArgs(['LOG', '--listen', 'a', '--json', '-v', '2', '--listen=b'], FLAGS, 1);
    expect(values).toEqual({ listen: 'b', json: true, v: '2' });
    expect(positionals).toEqual(['LOG']);
  });

  it.each([
    [['--bogus'], 'unknown flag: --bogus'],
    [['--bogus=1'], 'unknown flag: --bogus'],
    [['-x'], 'unknown flag: -x'],
    [['--listen'], 'flag needs a value: --listen'],
    [['--listen='], 'flag needs a value: --listen'],
    [['--listen', '--json'], 'flag needs a value: --listen'],
    [['--json=yes'], 'flag takes no value: --json'],
    [['one', 'two'], 'unexpected argument: two'],
  ])('rejects %j naming the flag or word (%s)', (argv, message) => {
    expect(() => parseCommandArgs(argv, FLAGS, 1)).toThrow(new UsageError(message));
  });
});

describe('subcommands read with parseCommandArgs', () => {
  it.each([
    ['report', runReportCommand, ['log.jsonl', '--bogus'], 'report: unknown flag: --bogus'],
    ['report', runReportCommand, ['a.jsonl', 'b.jsonl'], 'report: unexpected argument: b.jsonl'],
    ['replay', runReplayCommand, ['a.jsonl', 'b.jsonl'], 'replay: unexpected argument: b.jsonl'],
    ['replay', runReplayCommand, ['--json', 'a.jsonl'], 'replay: unknown flag: --json'],
    ['visualize', runVisualizeCommand, ['a.jsonl', '--listen'], 'visualize: flag needs a value: --listen'],
  ] as const)('%s exits 2 naming the mistake for %j', async (_name, run, argv, message) => {
    const c = capture();
    expect(await run([...argv], c.io)).toBe(2);
    expect(c.err.join('')).toContain(message);
    expect(c.out).toEqual([]);
  });

  it.each([['--help'], ['-h']])('visualize prints its usage on stdout for %s and exits 0', async (flag) => {
    const c = capture();
    expect(await runVisualizeCommand([flag], c.io)).toBe(0);
    expect(c.out.join('')).toContain('usage: kubelet-ts visualize LOG');
    expect(c.err).toEqual([]);
  });

  it('report and replay still want a LOG', async () => {
    for (const run of [runReportCommand, runReplayCommand]) {
      const c = capture();
      expect(await run([], c.io)).toBe(2);
      expect(c.err.join('')).toMatch(/usage: kubelet-ts (report|replay) LOG/);
    }
  });
});
