/**
 * Parses the text of a KubeletConfiguration file (YAML or JSON; JSON is read as YAML, which it is a
 * subset of) into plain data, strictly: a duplicated key anywhere is an error naming the key and its
 * line, like the Go kubelet's strict decoding. Syntax errors, unresolved aliases, alias bombs and
 * more than one document are errors too, each naming the file. Linear in the text's size.
 *
 * Difference from Go: Go reads YAML 1.1 (sigs.k8s.io/yaml), where `yes`/`no`/`on`/`off` are booleans;
 * we read YAML 1.2, where they are strings (so `failSwapOn: no` is a type error naming the field).
 */
import { KubeletError } from '../../domain/errors.js';
import { parseStrictYaml, type YamlProblem } from '../bounded-input/strict-yaml.js';

export function parseConfigText(text: string, fileName: string): unknown {
  const fail = (what: string) => new KubeletError('KLT_ERR_CONFIG_PARSE', `failed to load kubelet config file ${fileName}: ${what}`);
  const parsed = parseStrictYaml(text);
  if (!parsed.ok) throw fail(parsed.problems.map(describe).join('; '));
  if (parsed.documents.length > 1) throw fail(`it holds ${parsed.documents.length} YAML documents, expected one`);
  return parsed.documents[0]?.value ?? null;
}

function describe(problem: YamlProblem): string {
  const at = problem.line !== undefined ? ` at line ${problem.line}` : '';
  if (problem.code === 'DUPLICATE_KEY') return `duplicate field ${JSON.stringify(problem.key)}${at}`;
  return `${problem.message}${at}`;
}
