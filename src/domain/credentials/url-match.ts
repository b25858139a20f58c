/**
 * Go's credential matching of an image against a registry key (pkg/credentialprovider url.go:
 * ParseSchemelessURL, SplitURL, URLsMatch): the key and the image are read as URLs without a
 * scheme; they match when the ports are equal, the hosts have as many dot-separated parts, each key
 * part glob-matches its image part (Go's filepath.Match: `*`, `?`, `[a-z]`, `\` escapes), and the
 * key's path is a string prefix of the image's path. Hosts are compared as written: no lowercasing,
 * no default ports, no IP normalisation (WHATWG's URL would do all three, so it is not used).
 */

export interface SchemelessUrl {
  /** host[:port] as written. */
  host: string;
  /** Everything from the first `/` after the host, without a query or fragment. */
  path: string;
}

/** url.Parse("https://" + s) with the scheme dropped; an Error carries Go's message when Go's parse fails. */
export function parseSchemelessUrl(value: string): SchemelessUrl | Error {
  const raw = `https://${value}`;
  const failed = (why: string) => new Error(`parse ${JSON.stringify(raw)}: ${why}`);
  if (/[\x00-\x1f\x7f]/.test(value)) return failed('net/url: invalid control character in URL');
  const cut = value.search(/[/?#]/);
  let authority = cut === -1 ? value : value.slice(0, cut);
  const rest = cut === -1 ? '' : value.slice(cut);
  const at = authority.lastIndexOf('@');
  if (at !== -1) authority = authority.slice(at + 1);
  const path = rest.startsWith('/') ? rest.replace(/[?#].*$/s, '') : '';
  const portError = invalidPort(authority);
  if (portError) return failed(portError);
  const bad = /[^A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]/.exec(authority);
  if (bad) return failed(`invalid character ${JSON.stringify(bad[0])} in host name`);
  if (/%(?![0-9A-Fa-f]{2})/.test(authority)) return failed(`invalid URL escape ${JSON.stringify(authority.slice(authority.indexOf('%'), authority.indexOf('%') + 3))}`);
  return { host: authority, path };
}

/** Go's validOptionalPort, after an IPv6 literal's brackets when there are any. */
function invalidPort(host: string): string | undefined {
  const afterLiteral = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host;
  const colon = afterLiteral.lastIndexOf(':');
  if (colon === -1) return undefined;
  const port = afterLiteral.slice(colon);
  return /^:\d*$/.test(port) ? undefined : `invalid port ${JSON.stringify(port)} after host`;
}

/** Go's SplitURL: the host's dot-separated parts and the port ("" when none). */
function splitHost(host: string): { parts: string[]; port: string } {
  const literal = /^\[([^\]]*)\]:(\d*)$/.exec(host);
  if (literal) return { parts: literal[1]!.split('.'), port: literal[2]! };
  const colon = host.lastIndexOf(':');
  // net.SplitHostPort refuses a host without a port, or with more than one colon outside brackets.
  if (colon === -1 || host.indexOf(':') !== colon) return { parts: host.split('.'), port: '' };
  return { parts: host.slice(0, colon).split('.'), port: host.slice(colon + 1) };
}

/** URLsMatchStr: false when either side does not parse or the glob is malformed. */
export function urlsMatch(glob: string, target: string): boolean {
  const g = parseSchemelessUrl(glob);
  const t = parseSchemelessUrl(target);
  if (g instanceof Error || t instanceof Error) return false;
  const gh = splitHost(g.host);
  const th = splitHost(t.host);
  if (gh.port !== th.port || gh.parts.length !== th.parts.length) return false;
  if (!t.path.startsWith(g.path)) return false;
  return gh.parts.every((part, i) => globMatch(part, th.parts[i]!) === true);
}

/**
 * Go's filepath.Match for one host part (which holds no `/`): true or false, or an Error for a
 * malformed pattern (an unterminated class, a trailing `\`).
 */
export function globMatch(pattern: string, name: string): boolean | Error {
  const source = globToRegExp(pattern);
  return source instanceof Error ? source : new RegExp(`^${source}$`, 's').test(name);
}

const bad = () => new Error('syntax error in pattern');
const escapeChar = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

function globToRegExp(pattern: string): string | Error {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= pattern.length) return bad();
      out += escapeChar(pattern[++i]!);
    } else if (c === '[') {
      const cls = readClass(pattern, i + 1);
      if (cls instanceof Error) return cls;
      out += cls.source;
      i = cls.end;
    } else out += escapeChar(c);
  }
  return out;
}

/** A `[...]` class from just after its `[`: its regexp and the index of its `]`. */
function readClass(pattern: string, start: number): { source: string; end: number } | Error {
  let i = start;
  let negated = false;
  if (pattern[i] === '^') {
    negated = true;
    i++;
  }
  const ranges: string[] = [];
  const readChar = (): string | Error => {
    let c = pattern[i];
    if (c === undefined || c === '-' || c === ']') return bad();
    if (c === '\\') {
      c = pattern[++i];
      if (c === undefined) return bad();
    }
    i++;
    return c;
  };
  for (;;) {
    if (pattern[i] === ']' && ranges.length > 0) return { source: `[${negated ? '^' : ''}${ranges.join('')}]`, end: i };
    if (pattern[i] === undefined) return bad();
    const lo = readChar();
    if (lo instanceof Error) return lo;
    let hi = lo;
    if (pattern[i] === '-') {
      i++;
      const h = readChar();
      if (h instanceof Error) return h;
      hi = h;
    }
    if (hi < lo) return bad();
    ranges.push(lo === hi ? escapeChar(lo) : `${escapeChar(lo)}-${escapeChar(hi)}`);
  }
}
