/**
 * The one IP address parser of the codebase, with Go's `net.IP` semantics, so node-IP rules can stay pure (the
 * domain layer may not import node:net). Every address is held as 16 bytes, IPv4 as the
 * IPv4-mapped form `::ffff:a.b.c.d`, exactly like Go, so `::ffff:10.0.0.1` and `10.0.0.1` are the
 * same address and count as IPv4 (Go's `To4() != nil`).
 *
 * Two readings, as in Kubernetes:
 * - `parseIp` is Go's `net.ParseIP` (Go 1.17 and later): an IPv4 octet with a leading zero
 *   (`010.1.1.1`, `0010.1.1.1`) is rejected, because older parsers read it as octal.
 * - `parseIpSloppy` is k8s.io/utils/net `ParseIPSloppy`, which the kubelet uses for its flags and
 *   node IPs so that configurations written before Go 1.17 keep working: leading zeros are
 *   allowed and read as decimal (`0010.1.1.1` is 10.1.1.1).
 * Both reject IPv6 zones (`fe80::1%eth0`) and CIDR suffixes, and accept IPv4-mapped IPv6.
 */

export interface IpAddress {
  /** 16 bytes, network order; IPv4 in the IPv4-mapped form. */
  readonly bytes: readonly number[];
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Whether IPv4 octets may carry leading zeros (ParseIPSloppy) or not (ParseIP). */
type Octets = 'strict' | 'sloppy';

function parseIPv4Bytes(text: string, octets: Octets): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const part of parts) {
    // A run of decimal digits, value at most 255; Go 1.17+ refuses a leading zero.
    if (!/^[0-9]+$/.test(part)) return null;
    if (octets === 'strict' && part.length > 1 && part.startsWith('0')) return null;
    const value = Number.parseInt(part, 10);
    if (value > 255) return null;
    out.push(value);
  }
  return out;
}

function parseIPv6Bytes(text: string, octets: Octets): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (s: string, allowTrailingV4: boolean): number[] | null => {
    if (s === '') return [];
    const groups = s.split(':');
    const bytes: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] ?? '';
      if (allowTrailingV4 && i === groups.length - 1 && g.includes('.')) {
        const v4 = parseIPv4Bytes(g, octets);
        if (!v4) return null;
        bytes.push(...v4);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      const value = Number.parseInt(g, 16);
      bytes.push(value >> 8, value & 0xff);
    }
    return bytes;
  };
  if (halves.length === 1) {
    const bytes = parseGroups(text, true);
    return bytes && bytes.length === 16 ? bytes : null;
  }
  const head = parseGroups(halves[0] ?? '', false);
  const tail = parseGroups(halves[1] ?? '', true);
  if (!head || !tail) return null;
  // "::" stands for at least one zero group.
  const missing = 16 - head.length - tail.length;
  if (missing < 2) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseIpWith(text: string, octets: Octets): IpAddress | null {
  if (typeof text !== 'string') return null;
  if (text.includes(':')) {
    const bytes = parseIPv6Bytes(text, octets);
    return bytes ? { bytes } : null;
  }
  const v4 = parseIPv4Bytes(text, octets);
  return v4 ? { bytes: [...V4_MAPPED_PREFIX, ...v4] } : null;
}

/** Go's `net.ParseIP`: the address, or null when `text` is not one. */
export function parseIp(text: string): IpAddress | null {
  return parseIpWith(text, 'strict');
}

/** Go's `netutils.ParseIPSloppy`: the address, or null when `text` is not one. */
export function parseIpSloppy(text: string): IpAddress | null {
  return parseIpWith(text, 'sloppy');
}

/** Go's `ip.To4() != nil`: an IPv4 address, including IPv4-mapped IPv6 text. */
export function isIPv4(ip: IpAddress): boolean {
  return V4_MAPPED_PREFIX.every((b, i) => ip.bytes[i] === b);
}

export function isIPv6(ip: IpAddress): boolean {
  return !isIPv4(ip);
}

function v4(ip: IpAddress): number[] {
  return ip.bytes.slice(12) as number[];
}

export function isLoopback(ip: IpAddress): boolean {
  if (isIPv4(ip)) return v4(ip)[0] === 127;
  return ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}

export function isMulticast(ip: IpAddress): boolean {
  if (isIPv4(ip)) return ((v4(ip)[0] ?? 0) & 0xf0) === 0xe0;
  return ip.bytes[0] === 0xff;
}

/** 169.254.0.0/16 and fe80::/10. */
export function isLinkLocalUnicast(ip: IpAddress): boolean {
  if (isIPv4(ip)) {
    const [a, b] = v4(ip);
    return a === 169 && b === 254;
  }
  return ip.bytes[0] === 0xfe && ((ip.bytes[1] ?? 0) & 0xc0) === 0x80;
}

/** `0.0.0.0` or `::` (Go also counts `::ffff:0.0.0.0`, which is the same 16 bytes as 0.0.0.0). */
export function isUnspecified(ip: IpAddress): boolean {
  if (isIPv4(ip)) return v4(ip).every((b) => b === 0);
  return ip.bytes.every((b) => b === 0);
}

export function ipEqual(a: IpAddress, b: IpAddress): boolean {
  return a.bytes.every((byte, i) => byte === b.bytes[i]);
}

/** Go's `ip.String()`: dotted quad for IPv4, RFC 5952 for IPv6 (longest zero run of 2+ groups as ::). */
export function formatIp(ip: IpAddress): string {
  if (isIPv4(ip)) return v4(ip).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  if (bestLen < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}
