/**
 * Reads the CDI spec files of the spec directories (the CDI library's defaults: /etc/cdi, then
 * /var/run/cdi, the later winning), the `.json`, `.yaml` and `.yml` files directly in each. A file
 * that cannot be read, is not YAML or JSON, or breaks the specification is left out and named in
 * `problems`; the others still count, as the CDI library's cache keeps the good specs beside the
 * bad. Only regular files within the bound are read: a FIFO planted there cannot hold the runtime,
 * and a large one is parsed off the event loop (cdi-spec-parse.ts).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoadedCdiSpec } from '../../domain/cdi/cdi-registry.js';
import { byCodeUnits } from '../../domain/text/code-unit-order.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';
import { parseCdiSpecOffThread, type ParsedCdiSpec } from './cdi-spec-parse.js';

export const DEFAULT_CDI_SPEC_DIRS: readonly string[] = ['/etc/cdi', '/var/run/cdi'];

/** KUBELET_TS_CDI_SPEC_DIRS (colon-separated, rising priority) replaces the defaults: a node's CDI directories elsewhere, or a test's. */
export function cdiSpecDirsFrom(env: NodeJS.ProcessEnv): readonly string[] {
  const dirs = (env.KUBELET_TS_CDI_SPEC_DIRS ?? '').split(':').filter((d) => d !== '');
  return dirs.length > 0 ? dirs : DEFAULT_CDI_SPEC_DIRS;
}

/** A spec holds a few devices' edits; the largest real ones (every GPU of a node with its libraries' mounts) stay far below. */
export const CDI_SPEC_MAX_BYTES = 4 * 1024 * 1024;

export interface CdiSpecs { specs: LoadedCdiSpec[]; problems: string[] }

async function specFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((f) => /\.(json|ya?ml)$/.test(f)).sort(byCodeUnits).map((f) => join(dir, f));
  } catch {
    return []; // no such directory: no specs there
  }
}

/** `parse`: off the event loop for large specs (the daemon's); tests of small specs may parse inline. */
export async function readCdiSpecs(
  dirs: readonly string[] = cdiSpecDirsFrom(process.env),
  parse: (text: string) => Promise<ParsedCdiSpec> = parseCdiSpecOffThread,
): Promise<CdiSpecs> {
  const out: CdiSpecs = { specs: [], problems: [] };
  for (const [priority, dir] of dirs.entries()) {
    for (const path of await specFiles(dir)) {
      try {
        const { text } = await readRegularFile(path, CDI_SPEC_MAX_BYTES);
        const parsed = await parse(text);
        if ('error' in parsed) out.problems.push(`${path}: ${parsed.error}`);
        else out.specs.push({ path, priority, spec: parsed.spec });
      } catch (err) {
        out.problems.push(`${path}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  return out;
}
