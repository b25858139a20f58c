/**
 * Slash-separated path cleaning as Go's path.Clean / filepath.Clean on Linux, and Go's
 * volumeutil.MakeAbsolutePath (Linux branch: `Clean("/" + path)`), which the kubelet applies to the
 * container side of its own mounts (termination message, /etc/hosts) and when it looks them up.
 */

/** Go's Clean: single slashes, no `.` elements, `..` folded into its parent, no trailing slash; '' is '.'. */
export function cleanPath(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const element of path.split('/')) {
    if (element === '' || element === '.') continue;
    if (element === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(element);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** `Clean("/" + path)`: an absolute, cleaned path. */
export function makeAbsolutePath(path: string): string {
  return cleanPath(`/${path}`);
}
