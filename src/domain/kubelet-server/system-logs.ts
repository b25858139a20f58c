/**
 * The rules of `/logs/`, the node's log directory served read-only (Go: the kubelet's logServer, an
 * http.FileServer over /var/log/): which request paths are acceptable, what a directory listing
 * looks like, and what content type a file is served with. The file system side (resolving links,
 * refusing anything that escapes the directory) is the adapter's, in system-logs-route.ts.
 */

export type LogsPath =
  | {
      ok: true;
      /** Path segments below the log directory, without empty or `.` segments. */
      segments: string[];
      /** The URL ended in `/` (or named the directory itself): a directory is wanted. */
      trailingSlash: boolean;
    }
  | { ok: false; reason: string };

/**
 * The part of the URL path after `/logs/`, still percent-encoded, checked as Go's FileServer checks
 * it: a `..` segment is refused outright ("invalid URL path"), before any file is looked at.
 */
export function parseLogsPath(rawRelative: string): LogsPath {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawRelative);
  } catch {
    return { ok: false, reason: 'invalid URL escape in the log path' };
  }
  if (decoded.includes('\0')) return { ok: false, reason: 'invalid URL path: NUL byte' };
  // A backslash is an ordinary file name character on Linux, but no log file needs one, and it is
  // a separator to some proxies in front of the kubelet: refuse it rather than guess.
  if (decoded.includes('\\')) return { ok: false, reason: 'invalid URL path: backslash' };
  const parts = decoded.split('/');
  if (parts.includes('..')) return { ok: false, reason: 'invalid URL path' };
  return { ok: true, segments: parts.filter((p) => p !== '' && p !== '.'), trailingSlash: decoded === '' || decoded.endsWith('/') };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/**
 * A directory's entries as a page of links, sorted by name, directories with a trailing `/`, in the
 * shape Go's FileServer lists a directory (a `<pre>` of `<a href>`s), so tools that read one read
 * the other.
 */
export function directoryListingHtml(entries: ReadonlyArray<{ name: string; directory: boolean }>): string {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const links = sorted.map((e) => {
    const name = e.directory ? `${e.name}/` : e.name;
    // A relative link: `./` first so a name with a colon is not read as a URL scheme.
    return `<a href="./${escapeHtml(encodeURIComponent(e.name))}${e.directory ? '/' : ''}">${escapeHtml(name)}</a>`;
  });
  return ['<!doctype html>', '<meta name="viewport" content="width=device-width">', '<pre>', ...links, '</pre>', ''].join('\n');
}

/** The content type of a log file from its first bytes: gzip (rotated logs), binary, or text. */
export function sniffLogContentType(head: Uint8Array): string {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'application/x-gzip';
  if (head.includes(0)) return 'application/octet-stream';
  return 'text/plain; charset=utf-8';
}
