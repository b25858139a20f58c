import { appendFileSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runExplainCommand } from '../../../src/bin/commands/explain.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../../../src/domain/journal/record.js';
import { Records, UID } from '../../domain/explain/records.js';

const CLUSTER_LOG = 'test/fixtures/eventlogs/cluster-embedded.jsonl';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
}

/** A journal file of the given records, with a header. */
function journalFile(records: readonly JournalRecord[]): string {
  const header = { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 't', startTime: new Date(0).toISOString(), nodeName: 'n', configSha256: null, machinesSha256: '', segment: 1 };
  const path = join(mkdtempSync(join(tmpdir(), 'explain-')), 'events.jsonl');
  writeFileSync(path, [header, ...records].map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

describe('runExplainCommand', () => {
  it('tells a pod the recorded log knows, exit 0, each line citing records', async () => {
    const c = capture();
    expect(await runExplainCommand([CLUSTER_LOG, 'default/web'], c.io)).toBe(0);
    const text = c.out.join('');
    expect(text).toMatch(/^pod default\/web \(uid [0-9a-f-]{36}\)\n/);
    expect(text).toMatch(/\n {2}\+\d+\.\d{3}s {2}container main started \([0-9a-f]{12}\) {2}\[#\d+\]\n/);
  });

  it('gives the story as JSON with --json', async () => {
    const c = capture();
    expect(await runExplainCommand([CLUSTER_LOG, 'web', '--json'], c.io)).toBe(0);
    const story = JSON.parse(c.out.join('')) as { pod: { name: string }; lines: { family: string; cites: number[] }[] };
    expect(story.pod.name).toBe('web');
    expect(story.lines.find((l) => l.family === 'containers')?.cites.length).toBeGreaterThan(0);
  });

  it('exits 1 for a pod the log does not know, naming the closest', async () => {
    const c = capture();
    expect(await runExplainCommand([CLUSTER_LOG, 'default/wbe'], c.io)).toBe(1);
    expect(c.err.join('')).toMatch(/^explain: no pod "default\/wbe" in the log; closest: default\/web/);
    expect(c.out).toEqual([]);
    const j = capture();
    expect(await runExplainCommand([CLUSTER_LOG, 'default/wbe', '--json'], j.io)).toBe(1);
    expect(JSON.parse(j.out.join(''))).toMatchObject({ notFound: 'default/wbe', closest: expect.arrayContaining(['default/web']) });
  });

  it('exits 2 for a file that is not a journal, and for a missing POD', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'explain-')), 'x.jsonl');
    writeFileSync(path, '{"not":"a journal"}\n');
    const c = capture();
    expect(await runExplainCommand([path, 'web'], c.io)).toBe(2);
    expect(c.err.join('')).toContain('explain:');
    const d = capture();
    expect(await runExplainCommand([CLUSTER_LOG], d.io)).toBe(2);
    expect(d.err.join('')).toContain('explain: POD is missing\nusage: kubelet-ts explain LOG POD [--json]');
  });

  it('reports a torn last line once, though it reads the log twice', async () => {
    const r = new Records();
    r.admitted(100);
    const path = journalFile(r.all);
    appendFileSync(path, '{"seq":2,"t":');
    const c = capture();
    expect(await runExplainCommand([path, 'default/web'], c.io)).toBe(0);
    expect(c.err).toEqual([`explain: skipped line 3 of ${realpathSync(path)}: torn last line\n`]);
  });

  it('shows the control characters of a probe\'s output escaped, and exact with --json', async () => {
    const hostile = 'bye\u001b]0;owned\u0007\u001b[2J';
    const worker = `probe:${UID}:main:liveness`;
    const r = new Records();
    r.admitted(100);
    r.add(200, { actor: worker, kind: 'input', type: 'event', name: 'xstate.done.actor.runProbe', source: `${worker}/runProbe`, payload: { output: { result: 'failure', output: hostile } } });
    r.add(201, { actor: worker, type: 'action', name: 'send', payload: { to: 'syncLoop', event: { type: 'probe.result.changed', podUid: UID, container: 'main', containerId: 'c1', probe: 'liveness', result: 'failure', output: hostile } } });
    const path = journalFile(r.all);

    const c = capture();
    expect(await runExplainCommand([path, 'default/web'], c.io)).toBe(0);
    const text = c.out.join('');
    expect(text).not.toMatch(/[\u001b\u0007]/);
    expect(text).toContain('liveness probe of container main failed (bye\\x1b]0;owned\\x07\\x1b[2J)');

    const j = capture();
    expect(await runExplainCommand([path, 'default/web', '--json'], j.io)).toBe(0);
    const story = JSON.parse(j.out.join('')) as { lines: { family: string; text: string }[] };
    expect(story.lines.find((l) => l.family === 'probes')?.text).toBe(`liveness probe of container main failed (${hostile})`);
  });
});
