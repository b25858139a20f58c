/**
 * A CDI spec file's text to a checked spec. The CDI library reads every spec as YAML (JSON is
 * YAML); JSON.parse is tried first, as most specs (those DRA drivers write) are JSON and it is two
 * orders of magnitude faster, then YAML. Large specs are parsed on a worker thread: a spec is a
 * driver's file, and a few MiB of YAML take seconds, which no other pod or probe may wait for.
 *
 * The worker runs the built module next to this one (`cdi-spec-parse-worker.js`): tests of large
 * specs take this module from dist.
 */
import YAML from 'yaml';
import { validateCdiSpec, type CdiSpec } from '../../domain/cdi/cdi-spec.js';
import { oneShotWorker } from '../workers/one-shot-worker.js';

/** Specs up to this many characters are parsed inline: a device's edits are a few hundred bytes. */
export const CDI_INLINE_PARSE_MAX_CHARS = 64 * 1024;
/** YAML aliases expand; a spec has no use for them beyond a few. */
const MAX_ALIASES = 100;

export type ParsedCdiSpec = { spec: CdiSpec } | { error: string };

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return YAML.parse(text, { maxAliasCount: MAX_ALIASES });
  }
}

export function parseCdiSpecText(text: string): ParsedCdiSpec {
  try {
    const spec = validateCdiSpec(parseValue(text));
    return typeof spec === 'string' ? { error: spec } : { spec };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

const WORKER_URL = new URL('./cdi-spec-parse-worker.js', import.meta.url);

export async function parseCdiSpecOffThread(text: string): Promise<ParsedCdiSpec> {
  return text.length <= CDI_INLINE_PARSE_MAX_CHARS ? parseCdiSpecText(text) : oneShotWorker<ParsedCdiSpec>(WORKER_URL, { text }, (why) => ({ error: `its parser ${why}` }));
}
