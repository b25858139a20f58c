/**
 * The node's labels and taints as admission saw them at a record: the sync loop's start input, then
 * each `node.object.changed` it was told (the API server's Node, cluster mode).
 */
import { isPlainObject } from '../config/decode.js';
import type { Taint } from '../api/common-types.js';
import type { JournalRecord } from '../journal/record.js';

export interface NodeView { labels: Record<string, string>; taints: Taint[] }

/** Whether a record tells the sync loop the node's labels and taints (kept in a pod's history for admission). */
export function isNodeViewRecord(record: JournalRecord): boolean {
  if (record.actor === 'syncLoop' && record.type === 'event' && record.name === 'node.object.changed') return true;
  return record.type === 'action' && record.name === 'spawn' && isPlainObject(record.payload) && record.payload.child === 'syncLoop';
}

export function nodeViewAt(records: readonly JournalRecord[], seq: number): NodeView | undefined {
  let view: NodeView | undefined;
  for (const record of records) {
    if (record.seq > seq) break;
    if (!isNodeViewRecord(record) || !isPlainObject(record.payload)) continue;
    const source = record.name === 'spawn' ? (isPlainObject(record.payload.input) ? record.payload.input.node : undefined) : record.payload;
    if (isPlainObject(source) && isPlainObject(source.labels) && Array.isArray(source.taints)) {
      view = { labels: source.labels as Record<string, string>, taints: source.taints as Taint[] };
    }
  }
  return view;
}
