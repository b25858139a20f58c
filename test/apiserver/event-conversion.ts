/**
 * events.k8s.io/v1 Events and core/v1 Events are one stored object in Go, served in two shapes.
 * These convert field by field (the mapping of k8s.io/kubernetes/pkg/apis/events/v1 conversion).
 */
import type { KubeObject } from './resources.js';

/** [events.k8s.io/v1 field, core/v1 field] */
const FIELD_MAP: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const SAME = ['metadata', 'eventTime', 'series', 'reportingInstance', 'action', 'reason', 'related', 'type'];

function convert(obj: KubeObject, pairs: ReadonlyArray<readonly [string, string]>, apiVersion: string): KubeObject {
  const out: KubeObject = { kind: 'Event', apiVersion };
  for (const key of SAME) if (obj[key] !== undefined) out[key] = obj[key];
  for (const [from, to] of pairs) if (obj[from] !== undefined) out[to] = obj[from];
  return out;
}

export function coreEventFromEventsV1(obj: KubeObject): KubeObject {
  return convert(obj, FIELD_MAP, 'v1');
}

export function eventsV1FromCoreEvent(obj: KubeObject): KubeObject {
  return convert(obj, FIELD_MAP.map(([a, b]) => [b, a] as const), 'events.k8s.io/v1');
}
