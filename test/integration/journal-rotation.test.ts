/**
 * A long run's journal: segments rotate and the oldest are deleted, so the log no longer starts at
 * record 1; the daemon journals a checkpoint (the whole system's persisted snapshot) after each
 * rotation, the segment holds it before it may rotate again, and `kubelet-ts replay` starts from one. The real binary on the
 * embedded runtime with 8 KiB segments (smaller than a checkpoint: each segment holds one and what follows) (KUBELET_TS_EVENT_LOG_SEGMENT_BYTES), 8 kept.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { runExplainCommand } from '../../src/bin/commands/explain.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

let kubelet: StaticPodKubelet;
let log: string;

const replayCommand = (...args: string[]) => runKubeletCommand('replay', args);

describe('a journal whose first segments were rotated away', () => {
  beforeAll(async () => {
    kubelet = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: 'rotating', prefix: 'kts-rotation-', env: { KUBELET_TS_EVENT_LOG_SEGMENT_BYTES: '8192' } });
    writeFileSync(join(kubelet.manifests, 'probed.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probed' },
      spec: { terminationGracePeriodSeconds: 1, containers: [{
        name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM],
        readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
      }] },
    }));
    const events = join(kubelet.root, 'events');
    // Segment 1 is deleted once segment 9 is made (8 files are kept: 7 rotated and the active one).
    await until('the first segment rotated away', () => {
      const names = existsSync(events) ? readdirSync(events) : [];
      return names.some((n) => Number(/\.jsonl\.(\d+)$/.exec(n)?.[1] ?? 0) >= 9) ? true : undefined;
    }, 60_000, kubelet.stderr);
    expect(await kubelet.stop()).toBe(0);
    log = join(events, 'latest.jsonl');
  }, 90_000);

  afterAll(async () => {
    await kubelet?.dispose();
  }, 30_000);

  it('starts past record 1 and holds a checkpoint in every segment but the oldest kept, however the writes were batched', () => {
    const { records } = readJournal(log);
    expect(records[0]!.seq).toBeGreaterThan(1);
    const active = realpathSync(log);
    const rotated = readdirSync(join(kubelet.root, 'events'))
      .map((name) => ({ name, n: Number(/\.jsonl\.(\d+)$/.exec(name)?.[1] ?? NaN) }))
      .filter((f) => join(kubelet.root, 'events', f.name).startsWith(active) && Number.isFinite(f.n))
      .sort((a, b) => a.n - b.n);
    expect(rotated.length).toBe(7);
    for (const f of [...rotated.slice(1).map((r) => r.name), active.split('/').at(-1)!]) {
      const lines = readFileSync(join(kubelet.root, 'events', f), 'utf8').split('\n').filter((l) => l.includes('"type":"checkpoint"'));
      expect(lines.length, f).toBeGreaterThanOrEqual(1);
    }
    const checkpoints = records.filter((r) => r.type === 'checkpoint');
    expect(checkpoints.length).toBeGreaterThanOrEqual(7);
    expect(checkpoints[0]).toMatchObject({ actor: 'supervisor', kind: 'derived', name: 'checkpoint', payload: { snapshot: { status: 'active' } } });
  });

  it('replays identically from its first checkpoint', () => {
    const first = readJournal(log).records.find((r) => r.type === 'checkpoint')!;
    const r = replayCommand(log);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^replay: identical from the checkpoint at seq ${first.seq}: \\d+ records`));
    expect(r.status).toBe(0);
  });

  it('replays identically from every checkpoint it holds', () => {
    const checkpoints = readJournal(log).records.filter((r) => r.type === 'checkpoint');
    for (const checkpoint of checkpoints) {
      const r = replayCommand('--from', String(checkpoint.seq), log);
      expect(r.stdout, `from seq ${checkpoint.seq}`).toMatch(new RegExp(`^replay: identical from the checkpoint at seq ${checkpoint.seq}: `));
    }
  }, 60_000);

  it('replays from the last checkpoint at or before --from SEQ', () => {
    const { records } = readJournal(log);
    const checkpoints = records.filter((r) => r.type === 'checkpoint');
    // Rotation may journal two checkpoints a few records apart; aim between one and the next.
    const last = records.at(-1)!.seq;
    const gapAfter = (i: number) => (checkpoints[i + 1]?.seq ?? last + 1) - checkpoints[i]!.seq;
    const index = checkpoints.findIndex((_, i) => i >= 1 && gapAfter(i) >= 2);
    expect(index).toBeGreaterThanOrEqual(1);
    const chosen = checkpoints[index]!;
    const from = chosen.seq + Math.min(3, gapAfter(index) - 1);
    const r = replayCommand('--from', String(from), log);
    expect(r.stdout).toMatch(new RegExp(`^replay: identical from the checkpoint at seq ${chosen.seq}: `));
    expect(r.status).toBe(0);
  });

  it('explains a pod it knows from a checkpoint, saying where the log starts and that the history before was rotated away', async () => {
    const out: string[] = [];
    expect(await runExplainCommand([log, 'probed-rotating'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t) })).toBe(0);
    const first = readJournal(log).records[0]!.seq;
    expect(out.join('')).toMatch(new RegExp(`^pod default/probed-rotating \\(uid [0-9a-f]{32}\\)\n  \\(the log starts at record #${first}: earlier history was rotated away\\)\n`));
  });

  it('refuses a --from before every checkpoint of a log that does not start at 1, and a --from that is not a seq', () => {
    const { records } = readJournal(log);
    // A seq older than every record kept (the oldest segment may begin with a checkpoint).
    const before = replayCommand('--from', String(records[0]!.seq - 1), log);
    expect(before.status).toBe(2);
    expect(before.stderr).toMatch(/no checkpoint at or before seq \d+, and the log does not start at record 1/);
    const bad = replayCommand('--from', 'soon', log);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--from must be a record's seq .*"soon"/);
  });
});
