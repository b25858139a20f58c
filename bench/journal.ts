/**
 * Journal benchmarks, for what recording every event costs: append throughput and bytes per event,
 * the tap's cost on a live actor (journal on against off, same run), and replay speed. Bounded in
 * count; temp files only.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, setup, assign } from 'xstate';
import { createInspectionTap } from '../src/actors/journal/inspection-tap.js';
import { replay } from '../src/actors/journal/replay.js';
import { FileJournalSink, MemoryJournalSink } from '../src/adapters/journal-file/file-sink.js';
import { systemClock } from '../src/adapters/system-clock.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../src/domain/journal/record.js';

const HEADER = { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 'bench', startTime: new Date(0).toISOString(), nodeName: 'bench', configSha256: null, machinesSha256: 'bench', segment: 1 } as const;

/** A machine shaped like a pod worker's bookkeeping: every event changes context and state. */
const counter = setup({
  types: { context: {} as { n: number; last: unknown }, events: {} as { type: 'pod.sync.requested'; podUid: string; reason: string } },
}).createMachine({
  id: 'counter',
  context: { n: 0, last: null },
  initial: 'even',
  states: {
    even: { on: { 'pod.sync.requested': { target: 'odd', actions: assign({ n: ({ context }) => context.n + 1, last: ({ event }) => event.podUid }) } } },
    odd: { on: { 'pod.sync.requested': { target: 'even', actions: assign({ n: ({ context }) => context.n + 1, last: ({ event }) => event.podUid }) } } },
  },
});

function event(i: number) {
  return { type: 'pod.sync.requested' as const, podUid: `0f5c3c4e-6a4b-4c8e-9d6f-${String(i % 110).padStart(12, '0')}`, reason: 'pleg' };
}

/** Drive `n` events through a live actor, with the journal tapped to `sink` or off. */
function drive(n: number, onRecord: ((r: JournalRecord) => void) | null): number {
  const tap = onRecord ? createInspectionTap({ clock: systemClock, onRecord }) : null;
  const actor = createActor(counter, { systemId: 'bench', ...(tap ? { inspect: tap.inspect } : {}) });
  actor.start();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) actor.send(event(i));
  const ns = Number(process.hrtime.bigint() - t0);
  actor.stop();
  return ns;
}

export async function benchJournal(n = 100_000): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-journal-'));
  try {
    // 1. The sink alone: records already made, appended and flushed to a file.
    const memory = new MemoryJournalSink();
    drive(n, (r) => memory.append(r));
    const records = memory.records;
    const path = join(dir, 'append.jsonl');
    const sink = new FileJournalSink({ path, maxSegmentBytes: 1 << 30 });
    sink.open(HEADER);
    const t0 = process.hrtime.bigint();
    for (const r of records) sink.append(r);
    await sink.close();
    const appendNs = Number(process.hrtime.bigint() - t0);
    const bytes = statSync(path).size;

    // 2. A live actor, journal off and on (to a file), alternating, best of 3 each.
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < 3; round++) {
      off.push(drive(n, null));
      const file = new FileJournalSink({ path: join(dir, `live-${round}.jsonl`), maxSegmentBytes: 1 << 30 });
      file.open(HEADER);
      on.push(drive(n, (r) => file.append(r)));
      await file.close();
    }

    // 3. Replay: the inputs fed to a fresh actor, every derived record regenerated and compared.
    const t1 = process.hrtime.bigint();
    const result = replay(records, { machine: counter, rootSystemId: 'bench' });
    const replayNs = Number(process.hrtime.bigint() - t1);
    if (!result.ok) throw new Error(`replay diverged in the benchmark at seq ${result.divergence.seq}`);

    const bestOff = Math.min(...off);
    const bestOn = Math.min(...on);
    return {
      events: n,
      records: records.length,
      appendRecordsPerSec: Math.round(records.length / (appendNs / 1e9)),
      bytesPerRecord: Math.round(bytes / records.length),
      liveEventsPerSecJournalOff: Math.round(n / (bestOff / 1e9)),
      liveEventsPerSecJournalOn: Math.round(n / (bestOn / 1e9)),
      liveCostRatio: Number((bestOn / bestOff).toFixed(2)),
      replayRecordsPerSec: Math.round(records.length / (replayNs / 1e9)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
