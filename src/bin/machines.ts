/**
 * The machine definitions a run uses, hashed into the journal header so replay can warn when the
 * code that replays is not the code that recorded. Functions (guards, assigners) are part of the
 * definition, so their source text is hashed too.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/journal/canonical-json.js';
import { MACHINES } from '../machines/index.js';

export function machinesSha256(): string {
  const text = Object.entries(MACHINES)
    .map(([name, m]) => `${name}:${canonicalJson(JSON.parse(JSON.stringify(m.config, (_k, v: unknown) => (typeof v === 'function' ? String(v) : v))))}`)
    .join('\n');
  return createHash('sha256').update(text).digest('hex');
}
