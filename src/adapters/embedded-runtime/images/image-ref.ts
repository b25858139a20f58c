/**
 * Image names as containerd's CRI plugin sees them: references are normalized the docker way before
 * they are looked up (`busybox` → `docker.io/library/busybox:latest`, `x/y` → `docker.io/x/y:latest`,
 * a missing tag becomes `:latest` unless a digest is given). The embedded runtime has no image content,
 * so an image's id is derived from its normalized name: `sha256:` + sha256(name). Stable across restarts
 * and machines, like a real content digest, but it names the name, not any bytes.
 */
import { createHash } from 'node:crypto';

const DEFAULT_DOMAIN = 'docker.io';
const OFFICIAL_PREFIX = 'library/';

export function normalizeImageRef(ref: string): string {
  const trimmed = ref.trim();
  if (trimmed === '') return trimmed;
  const slash = trimmed.indexOf('/');
  const first = slash < 0 ? '' : trimmed.slice(0, slash);
  const hasDomain = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  let named: string;
  if (hasDomain) named = trimmed;
  else if (slash < 0) named = `${DEFAULT_DOMAIN}/${OFFICIAL_PREFIX}${trimmed}`;
  else named = `${DEFAULT_DOMAIN}/${trimmed}`;
  if (named.startsWith(`${DEFAULT_DOMAIN}/`) && !named.slice(DEFAULT_DOMAIN.length + 1).includes('/')) {
    named = `${DEFAULT_DOMAIN}/${OFFICIAL_PREFIX}${named.slice(DEFAULT_DOMAIN.length + 1)}`;
  }
  if (named.includes('@')) return named;
  const lastComponent = named.slice(named.lastIndexOf('/') + 1);
  return lastComponent.includes(':') ? named : `${named}:latest`;
}

/**
 * The registry host of a normalized reference is under `.invalid`, the top-level domain that never
 * resolves (RFC 6761): no runtime could pull from it.
 */
export function isOnInvalidRegistry(normalizedRef: string): boolean {
  const host = normalizedRef.slice(0, normalizedRef.indexOf('/')).replace(/:\d+$/, '');
  return host.endsWith('.invalid');
}

export function imageIdFor(normalizedRef: string): string {
  return `sha256:${createHash('sha256').update(normalizedRef).digest('hex')}`;
}

/** True for `sha256:<64 hex>` or the bare 64 hex digits, the two ways an image id is passed around. */
export function looksLikeImageId(ref: string): boolean {
  return /^(sha256:)?[0-9a-f]{64}$/.test(ref);
}
