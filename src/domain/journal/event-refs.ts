/**
 * How the journal file writes an event between machines once (format version 4).
 *
 * An event one machine sends another reaches the journal twice: in the sender's `send` action
 * record (`{to, event}`) and in the record of its delivery to the receiver (a derived `event`
 * record, its payload the event's fields but `type`). A raised event is recorded by its `raise` and
 * its delivery alike, and a spawned machine's input by its parent's `spawn` and its own
 * `xstate.init`. The status of a pod alone went four times through the log in a burst so. The
 * delivery's payload is here written `{"$sent": seq}` when its every field is the very value the
 * record `seq` carried; the reader puts the payload back from that record, so replay, report and the
 * visualizer see every record whole. A reference to a record the reader has not read (its segment
 * rotated away) makes the record unreadable rather than read wrong.
 *
 * Both sides keep the last few carriers only (a delivery follows its send within the same step),
 * forgetting the oldest in the same order, and start afresh at a checkpoint.
 */
import type { JournalRecord } from './record.js';

/** Carriers kept, the most recent: deliveries follow their sends closely; anything older is written whole. */
const KEPT = 256;

interface Carried {
  seq: number;
  /** The delivered payload's fields as the carrier holds them (an event's `type` aside). */
  fields: Record<string, unknown>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The receiver and the event a `send`, `raise` or `spawn` record carries, keyed as its delivery will be; undefined for any other record. */
function carriedBy(record: JournalRecord): { key: string; fields: Record<string, unknown> } | undefined {
  if (record.type !== 'action' || !isPlainObject(record.payload)) return undefined;
  const payload = record.payload;
  switch (record.name) {
    case 'send':
    case 'raise': {
      const event = payload.event;
      const to = record.name === 'raise' ? record.actor : payload.to;
      if (typeof to !== 'string' || !isPlainObject(event) || typeof event.type !== 'string') return undefined;
      return { key: deliveryKey(to, event.type), fields: event };
    }
    case 'spawn':
      return typeof payload.child === 'string' && 'input' in payload ? { key: deliveryKey(payload.child, 'xstate.init'), fields: { input: payload.input } } : undefined;
    default:
      return undefined;
  }
}

const deliveryKey = (actor: string, event: string) => `${actor}\u0000${event}`;

const isDelivery = (record: JournalRecord) => record.type === 'event' && record.kind === 'derived';

/** The last carriers, oldest first; the same on both sides, since both see the same records. */
class Carriers {
  private readonly byDelivery = new Map<string, Carried>();

  /** Learns `record`'s carried event, if any; forgets everything at a checkpoint. */
  learn(record: JournalRecord): void {
    if (record.type === 'checkpoint') {
      this.byDelivery.clear();
      return;
    }
    const carried = carriedBy(record);
    if (!carried) return;
    this.byDelivery.delete(carried.key);
    this.byDelivery.set(carried.key, { seq: record.seq, fields: carried.fields });
    if (this.byDelivery.size > KEPT) this.byDelivery.delete(this.byDelivery.keys().next().value!);
  }

  of(record: JournalRecord): Carried | undefined {
    return this.byDelivery.get(deliveryKey(record.actor, record.name));
  }
}

/** The writer's side. */
export class EventCompactor {
  private readonly carriers = new Carriers();

  compact(record: JournalRecord): JournalRecord {
    if (isDelivery(record) && isPlainObject(record.payload)) {
      const carried = this.carriers.of(record);
      if (carried && sameFields(record.payload, carried.fields)) return { ...record, payload: { $sent: carried.seq } };
    }
    this.carriers.learn(record);
    return record;
  }
}

/** The reader's side. */
export class EventExpander {
  private readonly carriers = new Carriers();

  /** The record whole; throws when it refers to a record this reader has not read (a segment rotated away). */
  expand(record: JournalRecord): JournalRecord {
    const ref = isDelivery(record) ? referenceOf(record.payload) : undefined;
    if (ref === undefined) {
      this.carriers.learn(record);
      return record;
    }
    const carried = this.carriers.of(record);
    if (carried === undefined || carried.seq !== ref) throw new Error(`event ${record.name} refers to record ${ref}, which is not in the log`);
    const payload: Record<string, unknown> = {};
    for (const k of Object.keys(carried.fields)) if (k !== 'type') payload[k] = carried.fields[k];
    return { ...record, payload };
  }
}

/** Whether `payload` holds the very values `fields` does, key for key (an event's `type` aside, which a delivery's payload leaves out). */
function sameFields(payload: Record<string, unknown>, fields: Record<string, unknown>): boolean {
  let n = 0;
  for (const k of Object.keys(fields)) {
    if (k === 'type') continue;
    if (!Object.hasOwn(payload, k) || payload[k] !== fields[k]) return false;
    n += 1;
  }
  return n === Object.keys(payload).length;
}

function referenceOf(payload: unknown): number | undefined {
  if (!isPlainObject(payload)) return undefined;
  const seq = payload.$sent;
  return Number.isInteger(seq) && Object.keys(payload).length === 1 ? (seq as number) : undefined;
}
