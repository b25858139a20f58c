/**
 * The bootstrap's parts that decide without an API server: whether --kubeconfig is still usable
 * (Go's isClientConfigStillValid), the CSR's digest name, the pair store's files and link, the
 * kubeconfig written after a bootstrap, and how a CSR's conditions read.
 */
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrappedKubeconfig, kubeconfigProblem } from '../../../src/adapters/certificates/client-bootstrap.js';
import { csrDigestName } from '../../../src/adapters/certificates/node-certificate.js';
import { csrState } from '../../../src/adapters/certificates/csr-request.js';
import { PairStore } from '../../../src/adapters/certificates/pair-store.js';
import { readKubeconfig } from '../../../src/adapters/apiserver/kubeconfig-file.js';
import { createCertificate, generateKeyPair } from '../../../src/adapters/pki/x509.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'kts-boot-unit-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function selfSigned(notAfter: Date): Promise<{ certificatePem: string; keyPem: string }> {
  const pair = await generateKeyPair('ecdsa-p256');
  const certificatePem = await createCertificate(
    { subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] }, notBefore: new Date(Date.now() - 7200_000), notAfter, publicKey: pair.keys.publicKey, keyUsages: ['digitalSignature'], extendedKeyUsages: ['clientAuth'] },
    { selfKey: pair.keys.privateKey },
  );
  return { certificatePem, keyPem: pair.privateKeyPem };
}

describe('the pair store', () => {
  it("writes kubelet-client-<time>.pem (0600) and swaps the current link to it, as Go's file store", async () => {
    const store = new PairStore(join(dir, 'pki'), 'kubelet-client');
    expect(store.current().pair).toBeNull();
    const first = await selfSigned(new Date(Date.now() + 3600_000));
    const file = await store.update(first.certificatePem, first.keyPem, new Date('2026-11-23T10:11:12Z'));
    expect(file).toBe(join(dir, 'pki', 'kubelet-client-2026-11-23-10-11-12.pem'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readlinkSync(store.currentPath)).toBe('kubelet-client-2026-11-23-10-11-12.pem');
    expect(store.current().pair?.keyPem).toBe(first.keyPem);

    const second = await selfSigned(new Date(Date.now() + 7200_000));
    await store.update(second.certificatePem, second.keyPem, new Date('2026-11-23T11:00:00Z'));
    expect(readlinkSync(store.currentPath)).toBe('kubelet-client-2026-11-23-11-00-00.pem');
    expect(store.current().pair?.keyPem).toBe(second.keyPem);
    expect(readdirSync(join(dir, 'pki')).sort()).toEqual(['kubelet-client-2026-11-23-10-11-12.pem', 'kubelet-client-2026-11-23-11-00-00.pem', 'kubelet-client-current.pem']);
  });

  it('refuses a current pair whose key is not the certificate’s', async () => {
    const store = new PairStore(dir, 'kubelet-client');
    const a = await selfSigned(new Date(Date.now() + 3600_000));
    const b = await selfSigned(new Date(Date.now() + 3600_000));
    // update() refuses such a pair outright; one left on disk by something else is refused when read.
    await expect(store.update(a.certificatePem, b.keyPem, new Date())).rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG' });
    writeFileSync(join(dir, 'kubelet-client-mismatched.pem'), a.certificatePem + b.keyPem);
    symlinkSync('kubelet-client-mismatched.pem', store.currentPath);
    expect(store.current()).toMatchObject({ pair: null, why: expect.stringContaining('does not match') });
  });
});

describe('kubeconfigProblem (is --kubeconfig still usable?)', () => {
  const write = (user: Record<string, string>) => {
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, JSON.stringify({
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }], users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x',
    }));
    return path;
  };

  it('a missing file, a token without a certificate, an expired certificate: not usable, each said', async () => {
    expect(kubeconfigProblem(join(dir, 'nope'), new Date())).toContain('cannot read it: ENOENT');
    expect(kubeconfigProblem(write({ token: 'abc' }), new Date())).toContain('has no client certificate');
    const expired = await selfSigned(new Date(Date.now() - 3600_000));
    const pem = join(dir, 'expired.pem');
    writeFileSync(pem, expired.certificatePem + expired.keyPem);
    expect(kubeconfigProblem(write({ 'client-certificate': pem, 'client-key': pem }), new Date())).toContain('is expired');
  });

  it('a certificate still valid: usable', async () => {
    const fresh = await selfSigned(new Date(Date.now() + 3600_000));
    const pem = join(dir, 'fresh.pem');
    writeFileSync(pem, fresh.certificatePem + fresh.keyPem);
    expect(kubeconfigProblem(write({ 'client-certificate': pem, 'client-key': pem }), new Date())).toBeNull();
  });
});

describe('the CSR', () => {
  it("is named node-csr-<digest>: the same inputs the same name (a restart asks again with the same CSR), any change another", async () => {
    const key = createPublicKey((await generateKeyPair('ecdsa-p256')).privateKeyPem).export({ type: 'spki', format: 'der' });
    const other = createPublicKey((await generateKeyPair('ecdsa-p256')).privateKeyPem).export({ type: 'spki', format: 'der' });
    const name = csrDigestName(key, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth']);
    expect(name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(csrDigestName(key, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth'])).toBe(name);
    expect(csrDigestName(other, 'system:node:n1', ['system:nodes'], ['digital signature', 'client auth'])).not.toBe(name);
    // The delimiter keeps 'n1' + 'system:nodes' apart from 'n1system:' + 'nodes'.
    expect(csrDigestName(key, 'system:node:n1system:', ['nodes'], ['digital signature', 'client auth'])).not.toBe(name);
  });

  it('reads its conditions as WaitForCertificate does', () => {
    expect(csrState({})).toEqual({ state: 'pending' });
    expect(csrState({ status: { conditions: [{ type: 'Approved', status: 'True' }] } })).toEqual({ state: 'approved' });
    expect(csrState({ status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from('PEM').toString('base64') } })).toEqual({ state: 'issued', certificatePem: 'PEM' });
    expect(csrState({ status: { conditions: [{ type: 'Denied', status: 'True', reason: 'R', message: 'M' }] } })).toEqual({ state: 'denied', reason: 'R', message: 'M' });
    expect(csrState({ status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'F', message: 'bad' }] } })).toEqual({ state: 'failed', reason: 'F', message: 'bad' });
    expect(csrState({ status: { conditions: [{ type: 'Approved', status: 'False' }] } })).toEqual({ state: 'pending' });
  });
});

describe('the kubeconfig written after a bootstrap', () => {
  it("keeps the bootstrap kubeconfig's server and CA and names the current pair for certificate and key", async () => {
    const pair = await selfSigned(new Date(Date.now() + 3600_000));
    const pem = join(dir, 'kubelet-client-current.pem');
    writeFileSync(pem, pair.certificatePem + pair.keyPem);
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, bootstrappedKubeconfig({ server: 'https://10.0.0.1:6443', ca: Buffer.from('CA PEM'), insecureSkipTlsVerify: false }, pem));
    expect(JSON.parse(readFileSync(path, 'utf8'))['current-context']).toBe('default-context');
    const read = readKubeconfig(path);
    expect(read.cluster).toMatchObject({ server: 'https://10.0.0.1:6443', ca: Buffer.from('CA PEM') });
    expect(read.user.cert?.toString()).toBe(pair.certificatePem + pair.keyPem);
    expect(read.user.key?.toString()).toBe(pair.certificatePem + pair.keyPem);
    expect(kubeconfigProblem(path, new Date())).toBeNull();
  });
});
