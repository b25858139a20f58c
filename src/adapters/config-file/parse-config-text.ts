/**
 * Parses the text of a KubeletConfiguration file (YAML or JSON; JSON is read as YAML, which it is a
 * subset of) into plain data. A duplicated key is not an error: the Go kubelet's strict decoding
 * fails on it and its lenient decoding keeps the key's last value, so we keep the last value and hand
 * the duplicate back as a strict decoding error in the Go YAML decoder's words, for the loader to
 * warn of. Syntax errors, unresolved aliases, alias bombs and more than one document are errors,
 * each naming the file. Linear in the text's size.
 *
 * Difference from Go: Go reads YAML 1.1 (sigs.k8s.io/yaml), where `yes`/`no`/`on`/`off` are booleans;
 * we read YAML 1.2, where they are strings (so `failSwapOn: no` is a type error naming the field).
 */
import { KubeletError } from '../../domain/errors.js';
import { parseStrictYaml, type YamlProblem } from '../bounded-input/strict-yaml.js';

export interface ParsedConfigText {
  value: unknown;
  /** Each duplicated key, as Go's strict decoding names it: `line 7: key "maxPods" already set in map`. */
  strictErrors: string[];
}

export function parseConfigText(text: string, fileName: string): ParsedConfigText {
  const fail = (what: string) => new KubeletError('KLT_ERR_CONFIG_PARSE', `failed to load kubelet config file ${fileName}: ${what}`);
  const parsed = parseStrictYaml(text, { duplicateKeys: 'lastWins' });
  if (!parsed.ok) throw fail(parsed.problems.map(describe).join('; '));
  if (parsed.documents.length > 1) throw fail(`it holds ${parsed.documents.length} YAML documents, expected one`);
  return { value: parsed.documents[0]?.value ?? null, strictErrors: (parsed.duplicateKeys ?? []).map(alreadySet) };
}

function describe(problem: YamlProblem): string {
  return problem.line !== undefined ? `${problem.message} at line ${problem.line}` : problem.message;
}

function alreadySet(problem: YamlProblem): string {
  const key = `key ${JSON.stringify(problem.key ?? '')} already set in map`;
  return problem.line !== undefined ? `line ${problem.line}: ${key}` : key;
}
