import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSelfSignedCertificate, subjectAltNames } from '../../../../src/adapters/http/tls/self-signed.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-pki-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('ensureSelfSignedCertificate', () => {
  it('generates kubelet.crt and kubelet.key with CN <hostname>@<unix time> and the SANs', async () => {
    const certDir = join(dir, 'pki');
    const r = await ensureSelfSignedCertificate({ certDir, hostname: 'node-a', nodeIPs: ['10.0.0.5', 'fd00::5'], nowSeconds: 1700000000 });
    expect(r).toEqual({ certFile: join(certDir, 'kubelet.crt'), keyFile: join(certDir, 'kubelet.key'), generated: true });
    const cert = new X509Certificate(await readFile(r.certFile));
    expect(cert.subject).toBe('CN=node-a@1700000000');
    expect(cert.subjectAltName).toContain('DNS:node-a');
    expect(cert.subjectAltName).toContain('IP Address:10.0.0.5');
    expect(cert.subjectAltName).toMatch(/IP Address:FD00:0:0:0:0:0:0:5/i);
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(await readFile(r.keyFile)))).toBe(true);
    expect((await stat(r.keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(r.certFile)).mode & 0o777).toBe(0o644);
  }, 30_000);

  it("writes Go's pair: the serving certificate then the CA that signed it, RSA 2048, a year from an hour ago", async () => {
    const r = await ensureSelfSignedCertificate({ certDir: dir, hostname: 'node-a', nodeIPs: [], nowSeconds: 1700000000 });
    const text = await readFile(r.certFile, 'utf8');
    const [serving, ca] = text.split(/(?<=-----END CERTIFICATE-----\n)/).map((pem) => new X509Certificate(pem));
    expect(ca!.subject).toBe('CN=node-a-ca@1700000000');
    expect(ca!.ca).toBe(true);
    expect(serving!.ca).toBe(false);
    expect(serving!.checkIssued(ca!)).toBe(true);
    expect(serving!.verify(ca!.publicKey)).toBe(true);
    expect(serving!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(serving!.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(new Date(serving!.validFrom).getTime()).toBe((1700000000 - 3600) * 1000);
    expect(new Date(serving!.validTo).getTime()).toBe((1700000000 - 3600 + 365 * 86400) * 1000);
    expect(text.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(await readFile(r.keyFile, 'utf8')).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
  }, 30_000);

  it('reuses an existing readable pair', async () => {
    await writeFile(join(dir, 'kubelet.crt'), 'CERT');
    await writeFile(join(dir, 'kubelet.key'), 'KEY');
    const r = await ensureSelfSignedCertificate({ certDir: dir, hostname: 'node-a', nodeIPs: [], nowSeconds: 1 });
    expect(r.generated).toBe(false);
    expect(await readFile(r.certFile, 'utf8')).toBe('CERT');
  });

  it('refuses a hostname that cannot go into a subject', async () => {
    await expect(ensureSelfSignedCertificate({ certDir: dir, hostname: 'a/b', nodeIPs: [], nowSeconds: 1 })).rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG' });
  });

  it('names an IP hostname as an IP SAN and skips invalid node IPs', () => {
    expect(subjectAltNames('10.0.0.1', ['10.0.0.1', 'nonsense', '10.0.0.2'])).toEqual({ dnsNames: [], ipAddresses: ['10.0.0.1', '10.0.0.2'] });
  });

  it('reads addresses as the kubelet does (ParseIPSloppy, no zones) and writes them canonically', () => {
    expect(subjectAltNames('node-a', ['010.0.0.1', 'fe80::1%eth0', '2001:DB8::1'])).toEqual({ dnsNames: ['node-a'], ipAddresses: ['10.0.0.1', '2001:db8::1'] });
  });
});
