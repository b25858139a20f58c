/**
 * HPACK's static table (RFC 7541 Appendix A): the 61 header fields both ends know without sending
 * them, so a field that is in it travels as one index. The decoder reads it by index; the encoder
 * looks names up in it, and is the reason for the name map.
 */

/** `STATIC_TABLE[i - 1]` is the field at HPACK index `i`. */
export const STATIC_TABLE: ReadonlyArray<readonly [name: string, value: string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** How many entries the static table has: dynamic table indices start after it. */
export const STATIC_TABLE_LENGTH = 61;

/**
 * Each name's first index. Entries sharing a name are adjacent, so the encoder finds an exact
 * name–value pair by scanning on from here while the name still matches.
 */
export const STATIC_INDEX_BY_NAME: ReadonlyMap<string, number> = (() => {
  const byName = new Map<string, number>();
  STATIC_TABLE.forEach(([name], i) => {
    if (!byName.has(name)) byName.set(name, i + 1);
  });
  return byName;
})();
