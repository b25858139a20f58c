import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runExplainCommand } from '../../../src/bin/commands/explain.js';

const CLUSTER_LOG = 'test/fixtures/eventlogs/cluster-embedded.jsonl';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
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
});
