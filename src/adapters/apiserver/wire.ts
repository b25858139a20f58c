/**
 * client-node's generated models turn every time field into a Date. The kubelet's domain works on
 * wire JSON, so answers are turned back: whole seconds as metav1.Time prints them, anything finer
 * as MicroTime (six fractional digits).
 */
import { metaTime, microTime } from '../../domain/node-status/api-objects.js';

export function toWire<T>(value: unknown): T {
  return convert(value) as T;
}

function convert(value: unknown): unknown {
  if (value instanceof Date) return value.getTime() % 1000 === 0 ? metaTime(value.getTime()) : microTime(value.getTime());
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = convert(v);
    return out;
  }
  return value;
}
