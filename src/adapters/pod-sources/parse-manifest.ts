/**
 * The text of a manifest (YAML or JSON: JSON is read as YAML) as plain data, or why it is not one.
 *
 * Differs from Go: Go (sigs.k8s.io/yaml) reads YAML 1.1 and only the first document of a stream;
 * we read YAML 1.2 (`yes`/`no` are strings) and reject a file holding more than one document, so a
 * second pod in the same file is not silently ignored. Empty documents (a trailing `---`) are fine.
 * A duplicated key, an unresolved alias or an alias bomb is an error naming its line when known.
 * Linear in the text's size (see strict-yaml.ts).
 */
import { parseStrictYaml } from '../bounded-input/strict-yaml.js';

export type ParsedManifest = { ok: true; doc: unknown } | { ok: false; reason: string };

export function parseManifestText(text: string): ParsedManifest {
  const parsed = parseStrictYaml(text);
  if (!parsed.ok) {
    const first = parsed.problems[0];
    const at = first?.line !== undefined ? ` at line ${first.line}` : '';
    return { ok: false, reason: `couldn't parse as YAML or JSON: ${first?.message ?? 'unknown error'}${at}` };
  }
  const nonEmpty = parsed.documents.filter((doc) => !doc.empty);
  if (nonEmpty.length > 1) return { ok: false, reason: `holds ${nonEmpty.length} YAML documents, expected one pod` };
  const doc = nonEmpty[0];
  if (doc === undefined) return { ok: false, reason: 'empty manifest' };
  return { ok: true, doc: doc.value };
}
