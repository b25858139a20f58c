/**
 * D-Bus type signatures, checked as the specification's "Valid Signatures" says before any value
 * is read or written by them, and parsed once into a tree the marshaller walks. A signature from
 * the peer that breaks a rule is refused with the rule it breaks: an empty struct would let an
 * array hold elements of no width (a loop that never ends), and unbounded nesting a recursion that
 * never ends.
 */

/** The specification's longest signature. */
export const MAX_SIGNATURE_LENGTH = 255;
/** The specification's deepest nesting of arrays in one signature. */
export const MAX_ARRAY_DEPTH = 32;
/** The specification's deepest nesting of structs in one signature. */
export const MAX_STRUCT_DEPTH = 32;

/** The basic types: a dict entry's key must be one of them. */
const BASIC_CODES = 'ybnqiuxtdsogh';

export type DbusType =
  | { code: 'y' | 'b' | 'n' | 'q' | 'i' | 'u' | 'x' | 't' | 'd' | 's' | 'o' | 'g' | 'h' | 'v'; signature: string }
  | { code: 'a'; signature: string; elem: DbusType }
  | { code: '(' | '{'; signature: string; fields: DbusType[] };

/** Dict entries live in arrays only, so the array depth bounds theirs too. */
interface Depth { array: number; struct: number }

/** Parses a signature into its complete types: "sa{sv}(ii)" → s, a{sv}, (ii); throws naming the rule broken. */
export function parseSignature(signature: string): DbusType[] {
  if (signature.length > MAX_SIGNATURE_LENGTH) {
    throw new Error(`D-Bus signature of ${signature.length} characters is longer than the specification's ${MAX_SIGNATURE_LENGTH}`);
  }
  const parser = new Parser(signature);
  const types: DbusType[] = [];
  while (parser.at < signature.length) types.push(parser.completeType({ array: 0, struct: 0 }));
  return types;
}

/** The one complete type a variant's signature must be. */
export function parseSingleType(signature: string): DbusType {
  const types = parseSignature(signature);
  if (types.length !== 1) throw new Error(`D-Bus variant signature ${JSON.stringify(signature)} is not a single complete type`);
  return types[0] as DbusType;
}

/** Splits a signature into its complete types' texts: "sa{sv}(ii)" → ["s", "a{sv}", "(ii)"]. */
export function splitSignature(signature: string): string[] {
  return parseSignature(signature).map((t) => t.signature);
}

class Parser {
  at = 0;
  constructor(private readonly sig: string) {}

  private fail(reason: string): never {
    throw new Error(`D-Bus signature ${JSON.stringify(this.sig)} ${reason}`);
  }

  completeType(depth: Depth): DbusType {
    const start = this.at;
    const c = this.sig[this.at++];
    if (c === undefined) this.fail('ends inside a type');
    if (c === 'a') {
      if (depth.array >= MAX_ARRAY_DEPTH) this.fail(`nests arrays deeper than the specification's ${MAX_ARRAY_DEPTH}`);
      const inner = { ...depth, array: depth.array + 1 };
      const elem = this.sig[this.at] === '{' ? this.dictEntry(inner) : this.completeType(inner);
      return { code: 'a', signature: this.sig.slice(start, this.at), elem };
    }
    if (c === '(') {
      if (depth.struct >= MAX_STRUCT_DEPTH) this.fail(`nests structs deeper than the specification's ${MAX_STRUCT_DEPTH}`);
      if (this.sig[this.at] === ')') this.fail('has an empty struct "()", which the specification forbids');
      const fields: DbusType[] = [];
      while (this.sig[this.at] !== ')') {
        if (this.at >= this.sig.length) this.fail("has an unclosed '('");
        fields.push(this.completeType({ ...depth, struct: depth.struct + 1 }));
      }
      this.at++;
      return { code: '(', signature: this.sig.slice(start, this.at), fields };
    }
    if (c === '{') this.fail('has a dict entry "{" outside an array');
    if (c === ')' || c === '}') this.fail(`has an unmatched '${c}'`);
    if (!BASIC_CODES.includes(c) && c !== 'v') this.fail(`has the type code '${c}', which is not supported`);
    return { code: c as 'v', signature: c };
  }

  /** `{kv}` right after an `a`: a basic key and one complete value. */
  private dictEntry(depth: Depth): DbusType {
    const start = this.at++;
    const key = this.sig[this.at];
    if (key === undefined || key === '}') this.fail('has a dict entry without a key and a value');
    if (!BASIC_CODES.includes(key)) this.fail(`has a dict entry whose key '${key}' is not a basic type`);
    const fields = [this.completeType(depth)];
    if (this.sig[this.at] === '}') this.fail('has a dict entry without a value');
    fields.push(this.completeType(depth));
    if (this.at >= this.sig.length) this.fail("has an unclosed '{'");
    if (this.sig[this.at] !== '}') this.fail('has a dict entry with more than a key and a value');
    this.at++;
    return { code: '{', signature: this.sig.slice(start, this.at), fields };
  }
}
