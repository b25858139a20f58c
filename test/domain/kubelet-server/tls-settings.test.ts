import { describe, expect, it } from 'vitest';
import { tlsSettings } from '../../../src/domain/kubelet-server/tls-settings.js';

describe('tlsSettings', () => {
  it('defaults to TLS 1.2 and Node cipher defaults', () => {
    expect(tlsSettings(undefined, undefined)).toEqual({ ok: true, minVersion: 'TLSv1.2', ciphers: undefined });
    expect(tlsSettings('', [])).toEqual({ ok: true, minVersion: 'TLSv1.2', ciphers: undefined });
  });

  it('maps Go versions and suites to OpenSSL names, keeping TLS 1.3 suites on', () => {
    const r = tlsSettings('VersionTLS13', ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384']);
    expect(r.ok && r.minVersion).toBe('TLSv1.3');
    expect(r.ok && r.ciphers?.split(':')).toEqual(expect.arrayContaining(['ECDHE-RSA-AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'TLS_AES_128_GCM_SHA256']));
  });

  it('refuses unknown versions and suites', () => {
    expect(tlsSettings('VersionTLS14', []).ok).toBe(false);
    expect(tlsSettings(undefined, ['TLS_RSA_WITH_RC4_128_SHA'])).toEqual({ ok: false, reason: expect.stringContaining('TLS_RSA_WITH_RC4_128_SHA') });
  });
});
