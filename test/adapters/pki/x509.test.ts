/**
 * The in-process X.509 module, checked by what reads its output: Node's X509Certificate (OpenSSL)
 * for chains, names, usages and validity; a real TLS handshake for the key and certificate pair.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createSecureContext, createServer, connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import {
  createCertificate, createCertificateRequest, generateKeyPair, importPrivateKey, parseCertificateRequest, type KeyPair,
} from '../../../src/adapters/pki/x509.js';

const hour = 3600_000;
const now = Date.now();

async function makeCa(kind: 'ecdsa-p256' | 'rsa-2048' = 'ecdsa-p256'): Promise<{ pair: KeyPair; pem: string }> {
  const pair = await generateKeyPair(kind);
  const pem = await createCertificate(
    { subject: { commonName: 'test-ca' }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: pair.keys.publicKey, isCA: true, keyUsages: ['digitalSignature', 'keyEncipherment', 'keyCertSign'] },
    { selfKey: pair.keys.privateKey },
  );
  return { pair, pem };
}

describe('x509', () => {
  it('makes a self-signed CA that OpenSSL reads as one', async () => {
    const { pem } = await makeCa();
    const ca = new X509Certificate(pem);
    expect(ca.subject).toBe('CN=test-ca');
    expect(ca.issuer).toBe('CN=test-ca');
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(new Date(ca.validTo).getTime()).toBeGreaterThan(now);
  });

  it('issues a serving certificate with its names and usages, verified by its CA (RSA and ECDSA)', async () => {
    for (const kind of ['ecdsa-p256', 'rsa-2048'] as const) {
      const ca = await makeCa(kind);
      const leaf = await generateKeyPair(kind);
      const pem = await createCertificate(
        {
          subject: { commonName: 'node-a@1700000000' }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: leaf.keys.publicKey,
          keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['serverAuth'],
          altNames: { dnsNames: ['node-a'], ipAddresses: ['10.0.0.7', '010.0.0.8', 'fd00::1'] },
        },
        { certificatePem: ca.pem, privateKey: ca.pair.keys.privateKey },
      );
      const cert = new X509Certificate(pem);
      expect(cert.ca).toBe(false);
      expect(cert.issuer).toBe('CN=test-ca');
      expect(cert.checkIssued(new X509Certificate(ca.pem))).toBe(true);
      expect(cert.verify(new X509Certificate(ca.pem).publicKey)).toBe(true);
      expect(cert.subjectAltName).toBe('DNS:node-a, IP Address:10.0.0.7, IP Address:10.0.0.8, IP Address:FD00:0:0:0:0:0:0:1');
      expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
      expect(cert.checkPrivateKey(createPrivateKey(leaf.privateKeyPem))).toBe(true);
      expect(leaf.privateKeyPem).toMatch(kind === 'rsa-2048' ? /^-----BEGIN RSA PRIVATE KEY-----/ : /^-----BEGIN EC PRIVATE KEY-----/);
    }
  });

  it('writes serials in DER\'s shortest form: 16 bytes, the first in 0x40-0x7f (a leading 0 byte made OpenSSL refuse one certificate in 512)', async () => {
    const ca = await makeCa();
    const leaf = await generateKeyPair('ecdsa-p256');
    for (let i = 0; i < 40; i++) {
      const pem = await createCertificate(
        { subject: { commonName: `n${i}` }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: leaf.keys.publicKey, keyUsages: ['digitalSignature'] },
        { certificatePem: ca.pem, privateKey: ca.pair.keys.privateKey },
      );
      const serial = new X509Certificate(pem).serialNumber;
      expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
      expect(() => createSecureContext({ cert: pem, key: leaf.privateKeyPem })).not.toThrow();
    }
  });

  it('serves TLS with what it made: a client trusting the CA completes the handshake', async () => {
    const ca = await makeCa();
    const leaf = await generateKeyPair('ecdsa-p256');
    const cert = await createCertificate(
      { subject: { commonName: 'localhost' }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: leaf.keys.publicKey, keyUsages: ['digitalSignature'], extendedKeyUsages: ['serverAuth'], altNames: { ipAddresses: ['127.0.0.1'] } },
      { certificatePem: ca.pem, privateKey: ca.pair.keys.privateKey },
    );
    const server = createServer({ cert, key: leaf.privateKeyPem }, (s) => s.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: ca.pem });
      await once(socket, 'secureConnect');
      expect(socket.authorized).toBe(true);
      socket.destroy();
    } finally {
      server.close();
    }
  });

  it('round-trips a certificate request: subject, organizations, names; a tampered one does not verify', async () => {
    const pair = await generateKeyPair('ecdsa-p256');
    const pem = await createCertificateRequest({ commonName: 'system:node:node-a', organizations: ['system:nodes'] }, pair.keys, { dnsNames: ['node-a'], ipAddresses: ['10.0.0.7'] });
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n/);
    const parsed = await parseCertificateRequest(pem);
    expect(parsed?.subject).toEqual({ commonName: 'system:node:node-a', organizations: ['system:nodes'] });
    expect(parsed?.altNames).toEqual({ dnsNames: ['node-a'], ipAddresses: ['10.0.0.7'] });

    const body = pem.split('\n').slice(1, -2).join('');
    const der = Buffer.from(body, 'base64');
    der[der.length - 5]! ^= 0xff; // inside the signature
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    expect(await parseCertificateRequest(tampered)).toBeNull();
  });

  it('signs a request with an imported PEM key, as a signer does with its CA key', async () => {
    const ca = await makeCa();
    const caKeys = await importPrivateKey(ca.pair.privateKeyPem);
    const client = await generateKeyPair('ecdsa-p256');
    const request = await parseCertificateRequest(await createCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] }, client.keys));
    const pem = await createCertificate(
      { subject: request!.subject, notBefore: new Date(now), notAfter: new Date(now + hour), publicKey: request!.publicKey, keyUsages: ['digitalSignature'], extendedKeyUsages: ['clientAuth'] },
      { certificatePem: ca.pem, privateKey: caKeys.privateKey },
    );
    const cert = new X509Certificate(pem);
    expect(cert.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(cert.verify(new X509Certificate(ca.pem).publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(client.privateKeyPem))).toBe(true);
  });
});
