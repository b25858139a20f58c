/**
 * The text of a manifest (YAML or JSON: JSON is read as YAML) as plain data, or why it is not one.
 *
 * Differs from Go: Go (sigs.k8s.io/yaml) reads YAML 1.1 and only the first document of a stream;
 * we read YAML 1.2 (`yes`/`no` are strings) and reject a file holding more than one document, so a
 * second pod in the same file is not silently ignored. Empty documents (a trailing `---`) are fine.
 * A duplicated key is an error, naming its line.
 */
import YAML, { isScalar } from 'yaml';

export type ParsedManifest = { ok: true; doc: unknown } | { ok: false; reason: string };

export function parseManifestText(text: string): ParsedManifest {
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  if (!Array.isArray(docs)) return { ok: false, reason: 'empty manifest' };
  for (const doc of docs) {
    const first = doc.errors[0];
    if (first) return { ok: false, reason: `couldn't parse as YAML or JSON: ${first.message} at line ${lineOf(text, first.pos[0])}` };
  }
  const nonEmpty = docs.filter((doc) => doc.contents !== null && !(isScalar(doc.contents) && doc.contents.value === null));
  if (nonEmpty.length > 1) return { ok: false, reason: `holds ${nonEmpty.length} YAML documents, expected one pod` };
  const doc = nonEmpty[0];
  if (doc === undefined) return { ok: false, reason: 'empty manifest' };
  return { ok: true, doc: doc.toJS({ maxAliasCount: 100 }) };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}
