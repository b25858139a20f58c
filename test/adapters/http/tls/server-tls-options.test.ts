import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServerTlsOptions } from '../../../../src/adapters/http/tls/server-tls-options.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-tlsopt-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

const base = () => ({ certDir: join(dir, 'pki'), hostname: 'node-a', nodeIPs: [] as string[] });

describe('buildServerTlsOptions', () => {
  it('uses the self-signed pair, TLS 1.2 minimum, and asks for no client certificate without a client CA', async () => {
    const o = await buildServerTlsOptions(base(), undefined, 1700000000);
    expect(o.minVersion).toBe('TLSv1.2');
    expect(o.requestCert).toBe(false);
    expect(String(o.cert)).toContain('BEGIN CERTIFICATE');
    expect(o.ca).toBeUndefined();
  }, 30_000);

  it('requests (but does not require) client certificates with a client CA, trusting nothing in OpenSSL', async () => {
    const o = await buildServerTlsOptions(base(), join(dir, 'pki', 'kubelet.crt'), 1);
    expect([o.requestCert, o.rejectUnauthorized, o.ca]).toEqual([true, false, []]);
  });

  it('refuses a certificate file without its key, and unreadable files', async () => {
    await expect(buildServerTlsOptions({ ...base(), certFile: '/x.crt' }, undefined, 1)).rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG' });
    await expect(buildServerTlsOptions({ ...base(), certFile: join(dir, 'no.crt'), keyFile: join(dir, 'no.key') }, undefined, 1))
      .rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG' });
  });
});
