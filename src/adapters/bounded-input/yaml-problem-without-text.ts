/**
 * A YAML problem of a file that may hold a credential (a kubeconfig, a credential provider
 * configuration), told by its place and its kind only. The `yaml` package's messages can quote the
 * source (its pretty errors add the offending line under a caret; a few plain messages carry the
 * token that failed), and the offending line of a kubeconfig is often its token or key: so the text
 * here is built from the problem's code and position alone, never from its message.
 */
import type { ErrorCode } from 'yaml';
import type { YamlProblem } from './strict-yaml.js';

/** What each code means, in words that quote nothing from the file. */
const KINDS: Record<ErrorCode | 'ALIAS', string> = {
  ALIAS: 'an alias to an anchor not defined before it, or too many aliases',
  ALIAS_PROPS: 'an alias with an anchor or a tag',
  BAD_ALIAS: 'an invalid alias',
  BAD_COLLECTION_TYPE: 'a tag that does not fit its collection',
  BAD_DIRECTIVE: 'an invalid directive',
  BAD_DQ_ESCAPE: 'an invalid escape sequence in a double-quoted string',
  BAD_INDENT: 'bad indentation',
  BAD_PROP_ORDER: 'anchors and tags in the wrong order',
  BAD_SCALAR_START: 'a plain value starting with a reserved character',
  BLOCK_AS_IMPLICIT_KEY: 'a nested mapping where a one-line key was expected (check the indentation)',
  BLOCK_IN_FLOW: 'a block collection inside a flow collection',
  DUPLICATE_KEY: 'a key given twice in one mapping',
  IMPOSSIBLE: 'input the parser cannot read',
  KEY_OVER_1024_CHARS: 'an implicit key longer than 1024 characters',
  MISSING_CHAR: 'a missing quote, bracket, comma or colon',
  MULTILINE_IMPLICIT_KEY: 'a key spanning more than one line (check the indentation)',
  MULTIPLE_ANCHORS: 'more than one anchor on one node',
  MULTIPLE_DOCS: 'more than one document',
  MULTIPLE_TAGS: 'more than one tag on one node',
  NON_STRING_KEY: 'a key that is not a string',
  RESOURCE_EXHAUSTION: 'collections nested too deeply',
  TAB_AS_INDENT: 'a tab used as indentation',
  TAG_RESOLVE_FAILED: 'an unknown tag',
  UNEXPECTED_TOKEN: 'an unexpected token',
};

/** `<file>:<line>:<col>: <kind> (<code>)` for each problem, once each, joined by `; `. */
export function describeYamlProblemsWithoutText(file: string, problems: readonly YamlProblem[]): string {
  const described = problems.map((p) => {
    const where = p.line === undefined ? file : `${file}:${p.line}:${p.col ?? 1}`;
    const kind = (KINDS as Record<string, string | undefined>)[p.code] ?? 'invalid YAML';
    return `${where}: ${kind} (${p.code})`;
  });
  return [...new Set(described)].join('; ');
}
