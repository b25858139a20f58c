/**
 * YAML (or JSON, read as YAML) text to plain data in time linear in its size, for files we do not
 * trust: manifests and kubelet configuration files.
 *
 * Why not the `yaml` package's own `uniqueKeys` check: it compares every key with every earlier key
 * of its mapping, quadratic in a mapping's size, so a manifest with very many labels holds the
 * decoder for a long time (docs/FINDINGS.md). We turn it off and check each
 * mapping with a Set instead. Aliases are bounded by the package's `maxAliasCount` (an alias bomb is
 * an error, not an exponential expansion), and the errors it throws while building the data (an
 * unresolved alias, too many aliases) come back as problems with a line, never as exceptions.
 * A duplicated key is a problem too, unless the caller reads leniently (`duplicateKeys: 'lastWins'`,
 * the kubelet's configuration files): then its last value is kept, as a YAML decoder that is not
 * strict keeps it, and each duplicate comes back beside the documents.
 */
import YAML, { isMap, isScalar, LineCounter } from 'yaml';

export interface YamlProblem {
  /** `DUPLICATE_KEY`, `ALIAS` (unresolved or too many aliases) or the `yaml` package's error code. */
  code: string;
  message: string;
  /** 1-based, when known. */
  line?: number;
  /** 1-based, when the line is known. */
  col?: number;
  /** The duplicated key, for DUPLICATE_KEY. */
  key?: string;
}

export interface YamlDocument {
  /** Nothing but a null or no content (e.g. after a trailing `---`). */
  empty: boolean;
  value: unknown;
}

export type StrictYaml = { ok: true; documents: YamlDocument[]; duplicateKeys?: YamlProblem[] } | { ok: false; problems: YamlProblem[] };

export interface StrictYamlOptions {
  /** `refuse` (the default): a duplicated key is a problem. `lastWins`: its last value is kept, and it is listed in `duplicateKeys`. */
  duplicateKeys?: 'refuse' | 'lastWins';
}

/** How many alias expansions one document may need (the `yaml` package's default is 100 too). */
export const MAX_ALIAS_COUNT = 100;

export function parseStrictYaml(text: string, options: StrictYamlOptions = {}): StrictYaml {
  const lenient = options.duplicateKeys === 'lastWins';
  const lines = new LineCounter();
  const at = (offset: number): { line: number; col: number } => lines.linePos(offset);
  const parsed = YAML.parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false, lineCounter: lines });
  if (!Array.isArray(parsed)) return { ok: true, documents: [], ...(lenient ? { duplicateKeys: [] } : {}) }; // an empty stream
  const problems: YamlProblem[] = [];
  const duplicates: YamlProblem[] = [];
  for (const doc of parsed) {
    for (const err of doc.errors) problems.push({ code: err.code, message: err.message, ...at(err.pos[0]) });
    (lenient ? duplicates : problems).push(...duplicateKeys(doc, at));
  }
  if (problems.length > 0) return { ok: false, problems };
  const documents: YamlDocument[] = [];
  for (const doc of parsed) {
    const empty = doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null);
    try {
      documents.push({ empty, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) });
    } catch (err) {
      // ReferenceError: an alias to an anchor not (yet) defined, or an alias count over the limit.
      return { ok: false, problems: [{ code: 'ALIAS', message: err instanceof Error ? err.message : String(err) }] };
    }
  }
  // toJS assigns a mapping's pairs in order, so a duplicated key ends with its last value.
  return { ok: true, documents, ...(lenient ? { duplicateKeys: duplicates } : {}) };
}

/** Every key that appears twice in one mapping, in one pass over the document. */
function duplicateKeys(doc: YAML.Document.Parsed, at: (offset: number) => { line: number; col: number }): YamlProblem[] {
  const found: YamlProblem[] = [];
  YAML.visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue; // a collection as a key: not in any Kubernetes schema
        const { value, range } = pair.key;
        const identity = `${typeof value}:${String(value)}`; // as the package compares: 1 and "1" differ
        if (!seen.has(identity)) {
          seen.add(identity);
          continue;
        }
        const key = String(value);
        found.push({ code: 'DUPLICATE_KEY', key, message: `Map keys must be unique: ${JSON.stringify(key)}`, ...at(range?.[0] ?? 0) });
      }
    },
  });
  return found;
}
