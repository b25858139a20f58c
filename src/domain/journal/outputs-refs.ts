/**
 * How the journal file writes the start-up phases' outputs once (format version 4).
 *
 * The supervisor hands each start-up phase every earlier phase's output (`input.outputs`, keyed by
 * phase id), so each phase's `spawn` record repeats all the outputs before it: most of a start's log
 * (the feature gates and the configuration alone are ~12 kB, repeated by some 25 phases). Here a
 * `spawn` record's output that the same actor's spawns wrote before, the very value or an equal one,
 * is written `{"$out": seq}`: the output of that phase as written whole in record `seq`. The reader
 * puts it back, so replay, report and the visualizer see every record whole; a reference to a record
 * it has not read (its segment rotated away) makes that record unreadable rather than read wrong.
 * A checkpoint starts afresh on both sides, as with pod references (pod-refs.ts).
 */
import type { JournalRecord } from './record.js';
import { sameJson } from '../same-json.js';

/** Where each output was written whole: by actor, then by phase id. */
type Written = Map<string, Map<string, { seq: number; value: unknown }>>;

type Outputs = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The outputs a `spawn` record's input carries, or undefined for any other record. */
function outputsOf(record: JournalRecord): Outputs | undefined {
  if (record.type !== 'action' || record.name !== 'spawn' || !isPlainObject(record.payload)) return undefined;
  const input = record.payload.input;
  return isPlainObject(input) && isPlainObject(input.outputs) ? input.outputs : undefined;
}

function withOutputs(record: JournalRecord, outputs: Outputs): JournalRecord {
  const payload = record.payload as { input: Outputs };
  return { ...record, payload: { ...payload, input: { ...payload.input, outputs } } };
}

/** `outputs` with each entry mapped by `fn`; the very object when `fn` changed none. */
function mapEntries(outputs: Outputs, fn: (key: string, value: unknown) => unknown): Outputs {
  let out: Outputs | null = null;
  const keys = Object.keys(outputs);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const mapped = fn(key, outputs[key]);
    if (mapped !== outputs[key] && out === null) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]!] = outputs[keys[j]!];
    }
    if (out !== null) out[key] = mapped;
  }
  return out ?? outputs;
}

function byActor(written: Written, actor: string): Map<string, { seq: number; value: unknown }> {
  let byKey = written.get(actor);
  if (!byKey) written.set(actor, (byKey = new Map()));
  return byKey;
}

/** The writer's side: where each actor's spawns wrote each output whole, since the last checkpoint. */
export class OutputsCompactor {
  private readonly written: Written = new Map();

  compact(record: JournalRecord): JournalRecord {
    if (record.type === 'checkpoint') this.written.clear();
    const outputs = outputsOf(record);
    if (!outputs) return record;
    const byKey = byActor(this.written, record.actor);
    const compacted = mapEntries(outputs, (key, value) => {
      // A primitive is as short as a reference to it.
      if (typeof value !== 'object' || value === null) return value;
      const at = byKey.get(key);
      // The supervisor passes an output on as the very object; equal content (a copy the journal's
      // payload form made) is as good.
      if (at && sameJson(at.value, value)) return { $out: at.seq };
      byKey.set(key, { seq: record.seq, value });
      return value;
    });
    return compacted === outputs ? record : withOutputs(record, compacted);
  }
}

/** The reader's side: the outputs written whole since the last checkpoint, to put referenced ones back. */
export class OutputsExpander {
  private readonly written: Written = new Map();

  /** The record whole; throws when it refers to a record this reader has not read (a segment rotated away). */
  expand(record: JournalRecord): JournalRecord {
    if (record.type === 'checkpoint') this.written.clear();
    const outputs = outputsOf(record);
    if (!outputs) return record;
    const byKey = byActor(this.written, record.actor);
    const expanded = mapEntries(outputs, (key, value) => {
      const ref = referenceOf(value);
      if (ref === undefined) {
        if (typeof value === 'object' && value !== null) byKey.set(key, { seq: record.seq, value });
        return value;
      }
      const at = byKey.get(key);
      if (at === undefined || at.seq !== ref) throw new Error(`the output of ${key} refers to record ${ref}, which is not in the log`);
      return at.value;
    });
    return expanded === outputs ? record : withOutputs(record, expanded);
  }
}

function referenceOf(value: unknown): number | undefined {
  if (!isPlainObject(value)) return undefined;
  const seq = value.$out;
  return Number.isInteger(seq) && Object.keys(value).length === 1 ? (seq as number) : undefined;
}
