/**
 * IP address syntax (Go net.ParseIP's accepted forms), kept in the domain layer without node:net.
 */

export function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

export function isIPv6(text: string): boolean {
  if (text.includes('%')) return false; // zones are not IPs for ParseIP
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (half: string): string[] | undefined => (half === '' ? [] : half.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (left === undefined || right === undefined) return false;
  const all = [...left, ...right];
  let width = 0;
  for (const [i, group] of all.entries()) {
    if (i === all.length - 1 && group.includes('.')) {
      if (!isIPv4(group)) return false;
      width += 2;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(group)) {
      width += 1;
    } else {
      return false;
    }
  }
  return halves.length === 2 ? width < 8 : width === 8;
}

export function isIP(text: string): boolean {
  return isIPv4(text) || isIPv6(text);
}
