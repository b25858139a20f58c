/**
 * tlsMinVersion and tlsCipherSuites, from the Go names the kubelet accepts (crypto/tls constant names,
 * as k8s.io/component-base/cli/flag lists them) to what Node's TLS (OpenSSL) understands.
 *
 * Differences from Go, stated: only the suites below are known; Go also accepts the insecure RC4 and
 * 3DES suites, which OpenSSL 3 no longer offers: they are refused here as unknown. The TLS 1.3 suites
 * are accepted and, as in Go, cannot be restricted (they stay on whatever the list says).
 */

export const TLS_VERSIONS: Readonly<Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** Go suite name → OpenSSL cipher name. */
export const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

export type TlsSettingsResult =
  | { ok: true; minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'; ciphers: string | undefined }
  | { ok: false; reason: string };

/** Empty min version → TLS 1.2 (Go's server default); empty suite list → Node's defaults. */
export function tlsSettings(minVersion: string | undefined, cipherSuites: readonly string[] | undefined): TlsSettingsResult {
  const min = minVersion ? TLS_VERSIONS[minVersion] : 'TLSv1.2';
  if (!min) return { ok: false, reason: `unknown tls version ${JSON.stringify(minVersion)}` };
  const names: string[] = [];
  for (const suite of cipherSuites ?? []) {
    const name = CIPHER_SUITES[suite];
    if (!name) return { ok: false, reason: `Cipher suite ${suite} not supported or doesn't exist` };
    if (!names.includes(name)) names.push(name);
  }
  if (names.length === 0) return { ok: true, minVersion: min, ciphers: undefined };
  // Node reads TLS 1.3 suites from the same string; none listed would leave TLS 1.3 with none, so
  // keep them all on (Go does not let TLS 1.3 suites be configured either).
  const tls13 = ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'];
  const tls12 = names.filter((n) => !n.startsWith('TLS_'));
  return { ok: true, minVersion: min, ciphers: [...tls13, ...tls12].join(':') };
}
