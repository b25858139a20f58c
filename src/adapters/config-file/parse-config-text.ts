/**
 * Parses the text of a KubeletConfiguration file (YAML or JSON; JSON is read as YAML, which it is a
 * subset of) into plain data, strictly: a duplicated key anywhere is an error naming the key and its
 * line, like the Go kubelet's strict decoding. Syntax errors and more than one document are errors too.
 *
 * Difference from Go: Go reads YAML 1.1 (sigs.k8s.io/yaml), where `yes`/`no`/`on`/`off` are booleans;
 * we read YAML 1.2, where they are strings (so `failSwapOn: no` is a type error naming the field).
 */
import YAML, { isPair, isScalar } from 'yaml';
import { KubeletError } from '../../domain/errors.js';

export function parseConfigText(text: string, fileName: string): unknown {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  if (!Array.isArray(docs)) return null; // empty stream
  if (docs.length > 1) {
    throw new KubeletError('KLT_ERR_CONFIG_PARSE', `failed to load kubelet config file ${fileName}: it holds ${docs.length} YAML documents, expected one`);
  }
  const doc = docs[0];
  if (doc === undefined) return null;
  const problems = doc.errors.map((err) => {
    const line = lineOf(text, err.pos[0]);
    if (err.code === 'DUPLICATE_KEY') return `duplicate field ${JSON.stringify(keyAt(doc, err.pos[0]) ?? text.slice(err.pos[0], err.pos[1]))} at line ${line}`;
    return `${err.message} at line ${line}`;
  });
  if (problems.length > 0) {
    throw new KubeletError('KLT_ERR_CONFIG_PARSE', `failed to load kubelet config file ${fileName}: ${problems.join('; ')}`);
  }
  return doc.toJS({ maxAliasCount: 100 });
}

/** The key (as text) of the mapping entry whose key starts at `offset`, for naming duplicates. */
function keyAt(doc: YAML.Document.Parsed, offset: number): string | undefined {
  let found: string | undefined;
  YAML.visit(doc, {
    Pair(_, pair) {
      if (!isPair(pair) || !isScalar(pair.key)) return undefined;
      const range = pair.key.range;
      if (range !== null && range !== undefined && range[0] === offset) {
        found = String(pair.key.value);
        return YAML.visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}
