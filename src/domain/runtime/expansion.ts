/**
 * `$(VAR)` expansion exactly as Kubernetes does it (third_party/forked/golang/expansion):
 * - `$(NAME)` is replaced by mapping(NAME);
 * - `$$` is an escaped `$`, so `$$(NAME)` yields the literal `$(NAME)`;
 * - an unclosed `$(` and a `$` before any other character are kept as written;
 * - a lone `$` at the very end is kept.
 * The mapping decides what an unknown name becomes; `mappingFor` keeps it literal (`$(NAME)`).
 */

export type ExpansionMapping = (name: string) => string;

export function expand(input: string, mapping: ExpansionMapping): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    if (next === '$') {
      out += '$';
      cursor += 1;
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close === -1) {
        // Incomplete reference: keep "$(" and go on scanning after it.
        out += '$(';
        cursor += 1;
      } else {
        out += mapping(input.slice(cursor + 2, close));
        cursor = close;
      }
    } else {
      out += `$${next}`;
      cursor += 1;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** Looks a name up in each context in order; unknown names stay as `$(NAME)` (MappingFuncFor). */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): ExpansionMapping {
  return (name) => {
    for (const context of contexts) {
      const value = context.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}
