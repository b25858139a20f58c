import { describe, expect, it } from 'vitest';
import { EventCompactor, EventExpander } from '../../../src/domain/journal/event-refs.js';
import type { JournalRecord } from '../../../src/domain/journal/record.js';

let seq = 0;
const base = (actor: string) => ({ seq: ++seq, t: seq, wall: '', actor, source: null });
const send = (from: string, to: string, event: { type: string } & Record<string, unknown>): JournalRecord => ({ ...base(from), kind: 'derived', type: 'action', name: 'send', payload: { to, event } });
const raise = (actor: string, event: { type: string } & Record<string, unknown>): JournalRecord => ({ ...base(actor), kind: 'derived', type: 'action', name: 'raise', payload: { event } });
const spawn = (parent: string, child: string, input: unknown): JournalRecord => ({ ...base(parent), kind: 'derived', type: 'action', name: 'spawn', payload: { child, src: 'm', input } });
/** The delivery, as the inspection tap records it: the event's fields but `type`, in a new object. */
const delivered = (to: string, from: string, event: { type: string } & Record<string, unknown>, kind: 'derived' | 'input' = 'derived'): JournalRecord => {
  const { type, ...payload } = event;
  return { ...base(to), source: from, kind, type: 'event', name: type, payload };
};
const checkpoint = (): JournalRecord => ({ ...base('supervisor'), kind: 'derived', type: 'checkpoint', name: 'checkpoint', payload: { snapshot: {} } });

function throughFile(records: JournalRecord[]): JournalRecord[] {
  const compactor = new EventCompactor();
  return records.map((r) => JSON.parse(JSON.stringify(compactor.compact(r))) as JournalRecord);
}
function read(written: JournalRecord[]): JournalRecord[] {
  const expander = new EventExpander();
  return written.map((r) => expander.expand(r));
}

describe('event references', () => {
  it('writes a sent, raised or spawned machine\'s event once: its delivery refers to the record that carried it', () => {
    const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const updated = { type: 'pod.status.updated', podUid: 'u', status };
    const sync = { type: 'sync.requested' };
    const input = { pod: { metadata: { name: 'p' } }, volumeName: 'v' };
    const records = [
      send('pod:u', 'syncLoop', updated), delivered('syncLoop', 'pod:u', updated),
      raise('pod:u', sync), delivered('pod:u', 'pod:u', sync),
      spawn('volumeManager', 'volume:u:v', input), delivered('volume:u:v', 'volumeManager', { type: 'xstate.init', input }),
    ];
    const written = throughFile(records);
    expect(written.map((r) => r.payload)).toEqual([
      records[0]!.payload, { $sent: records[0]!.seq },
      records[2]!.payload, { $sent: records[2]!.seq },
      records[4]!.payload, { $sent: records[4]!.seq },
    ]);
    expect(read(written)).toEqual(records);
  });

  it('writes a delivery whole when a field is not the very value sent, or the send went elsewhere', () => {
    const status = { phase: 'Running' };
    const records = [
      send('pod:u', 'syncLoop', { type: 'pod.status.updated', status }),
      delivered('syncLoop', 'pod:u', { type: 'pod.status.updated', status: { phase: 'Running' } }),
      send('pod:u', 'statusManager', { type: 'a', status }),
      delivered('syncLoop', 'pod:u', { type: 'a', status }),
      send('pod:u', 'syncLoop', { type: 'b', status }),
      delivered('syncLoop', 'pod:u', { type: 'b', status, extra: 1 }),
      delivered('syncLoop', 'outside', { type: 'b', status }, 'input'),
    ];
    const written = throughFile(records);
    expect(written.filter((r) => JSON.stringify(r.payload).includes('$sent'))).toEqual([]);
    expect(read(written)).toEqual(records);
  });

  it('starts afresh at a checkpoint, and keeps only the recent carriers', () => {
    const event = { type: 'e', n: 1 };
    const late = [send('a', 'b', event), checkpoint(), delivered('b', 'a', event)];
    expect(throughFile(late)[2]!.payload).toEqual({ n: 1 });
    const crowded = [send('a', 'b', event), ...Array.from({ length: 300 }, (_, i) => send('a', `c${i}`, { type: 'x' })), delivered('b', 'a', event)];
    const written = throughFile(crowded);
    expect(written.at(-1)!.payload).toEqual({ n: 1 });
    expect(read(written)).toEqual(crowded);
  });

  it('refuses a reference to a record it has not read rather than put another event there', () => {
    const event = { type: 'e', n: 1 };
    const written = throughFile([send('a', 'b', event), delivered('b', 'a', event)]);
    expect(() => new EventExpander().expand(written[1]!)).toThrow(/event e refers to record \d+, which is not in the log/);
  });
});
