/**
 * The in-process X.509 module, checked by what reads its output: Node's X509Certificate (OpenSSL)
 * for chains, names, usages and validity; the openssl command for its text form and a request's
 * signature; the strict DER reader for the fields Go's x509 writes; a real TLS handshake for the
 * key and certificate pair.
 */
import { execFile } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, createServer, connect } from 'node:tls';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  createCertificate, createCertificateRequest, generateKeyPair, importPrivateKey, parseCertificateRequest, pemToDer, type KeyPair,
} from '../../../src/adapters/pki/x509.js';
import { parseStrictDer, type DerNode } from '../../support/strict-der.js';

const run = promisify(execFile);

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

  it('signs a request that openssl made (PrintableString names), and a certificate under an openssl CA whose subject it copies byte for byte', async () => {
    await withDir(async (dir) => {
      const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
      await run('openssl', ['req', '-x509', ...ec, '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'), '-days', '1', '-subj', '/C=DE/O=lab+OU=x/CN=lab-ca']);
      // string_mask = default: PrintableString where the text allows it, as Go's pkix.Name writes names.
      await writeFile(join(dir, 'req.cnf'), '[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n');
      await run('openssl', ['req', '-config', join(dir, 'req.cnf'), ...ec, '-keyout', join(dir, 'n.key'), '-out', join(dir, 'n.csr'),
        '-subj', '/O=system:nodes/CN=system:node:n2', '-addext', 'subjectAltName=DNS:n2,IP:10.0.0.9']);
      const request = await parseCertificateRequest(await readFile(join(dir, 'n.csr'), 'utf8'));
      expect(request?.subject).toEqual({ commonName: 'system:node:n2', organizations: ['system:nodes'] });
      expect(request?.altNames).toEqual({ dnsNames: ['n2'], ipAddresses: ['10.0.0.9'] });
      const caPem = await readFile(join(dir, 'ca.crt'), 'utf8');
      const pem = await createCertificate(
        { subject: request!.subject, notBefore: new Date(now), notAfter: new Date(now + hour), publicKey: request!.publicKey, keyUsages: ['digitalSignature'], extendedKeyUsages: ['clientAuth'] },
        { certificatePem: caPem, privateKey: (await importPrivateKey(await readFile(join(dir, 'ca.key'), 'utf8'))).privateKey },
      );
      const ca = new X509Certificate(caPem);
      expect(new X509Certificate(pem).checkIssued(ca)).toBe(true);
      expect(new X509Certificate(pem).verify(ca.publicKey)).toBe(true);
      expect(tbsField(pem, 'issuer').encoding).toEqual(tbsField(caPem, 'subject').encoding);
      await writeFile(join(dir, 'leaf.crt'), pem);
      expect((await run('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'leaf.crt')])).stdout).toContain('OK');
    });
  });

  it('writes the fields Go\'s x509 writes, in strict DER: versions, algorithms, critical usages, key identifiers, names', async () => {
    for (const kind of ['ecdsa-p256', 'rsa-2048'] as const) {
      const ca = await makeCa(kind);
      const leaf = await generateKeyPair('ecdsa-p256');
      const pem = await createCertificate(
        { subject: { commonName: 'n', organizations: ['b', 'a'] }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: leaf.keys.publicKey, keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['serverAuth', 'clientAuth'], altNames: { dnsNames: ['n'], ipAddresses: ['10.1.2.3'] } },
        { certificatePem: ca.pem, privateKey: ca.pair.keys.privateKey },
      );
      const algorithm = kind === 'rsa-2048' ? '30 0d 06 09 2a 86 48 86 f7 0d 01 01 0b 05 00' : '30 0a 06 08 2a 86 48 ce 3d 04 03 02';
      expect(hex(tbsField(pem, 'signature').encoding)).toBe(algorithm);
      expect(hex(parseStrictDer(der(pem)).children[1]!.encoding)).toBe(algorithm);
      expect(hex(tbsField(pem, 'version').encoding)).toBe('a0 03 02 01 02');
      expect(hex(tbsField(pem, 'serial').encoding)).toMatch(/^02 10 [4-7]/);
      // One attribute per RDN, organizations first, in the order given.
      expect(tbsField(pem, 'subject').children.map((rdn) => rdn.children.length)).toEqual([1, 1, 1]);
      expect(new X509Certificate(pem).subject).toBe('O=b\nO=a\nCN=n');
      const caKeyId = createHash('sha1').update(tbsField(ca.pem, 'subjectPublicKeyInfo').children[1]!.content.subarray(1)).digest('hex');
      expect(extensions(ca.pem)).toEqual({
        '55 1d 0f': 'critical 03 02 02 a4', // digitalSignature, keyEncipherment, keyCertSign; 2 unused bits
        '55 1d 13': 'critical 30 03 01 01 ff',
        '55 1d 0e': `04 14 ${hex(Buffer.from(caKeyId, 'hex'))}`,
        '55 1d 23': `30 16 80 14 ${hex(Buffer.from(caKeyId, 'hex'))}`,
      });
      expect(extensions(pem)).toEqual({
        '55 1d 0f': 'critical 03 02 05 a0', // digitalSignature, keyEncipherment; 5 unused bits
        '55 1d 13': 'critical 30 00',
        '55 1d 25': '30 14 06 08 2b 06 01 05 05 07 03 01 06 08 2b 06 01 05 05 07 03 02',
        '55 1d 23': `30 16 80 14 ${hex(Buffer.from(caKeyId, 'hex'))}`,
        '55 1d 11': '30 09 82 01 6e 87 04 0a 01 02 03',
      });
    }
  });

  it('writes validity as UTCTime through 2049 and GeneralizedTime from 2050, read back by OpenSSL', async () => {
    const pair = await generateKeyPair('ecdsa-p256');
    const pem = await createCertificate(
      { subject: { commonName: 'long' }, notBefore: new Date('2049-12-31T23:59:59Z'), notAfter: new Date('2050-01-01T00:00:00Z'), publicKey: pair.keys.publicKey, keyUsages: ['digitalSignature'] },
      { selfKey: pair.keys.privateKey },
    );
    expect(tbsField(pem, 'validity').children.map((t) => `${t.tagNumber} ${Buffer.from(t.content).toString('latin1')}`)).toEqual(['23 491231235959Z', '24 20500101000000Z']);
    const cert = new X509Certificate(pem);
    expect(new Date(cert.validFrom).toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2050-01-01T00:00:00.000Z');
  });

  it('is read by the openssl command: the text form shows the usages and names, a request\'s signature verifies', async () => {
    await withDir(async (dir) => {
      const ca = await makeCa('rsa-2048');
      const leaf = await generateKeyPair('rsa-2048');
      const pem = await createCertificate(
        { subject: { commonName: 'node-b' }, notBefore: new Date(now - hour), notAfter: new Date(now + hour), publicKey: leaf.keys.publicKey, keyUsages: ['keyEncipherment', 'digitalSignature'], extendedKeyUsages: ['serverAuth'], altNames: { dnsNames: ['node-b'], ipAddresses: ['10.0.0.2'] } },
        { certificatePem: ca.pem, privateKey: ca.pair.keys.privateKey },
      );
      await writeFile(join(dir, 'leaf.crt'), pem);
      await writeFile(join(dir, 'ca.crt'), ca.pem);
      const text = (await run('openssl', ['x509', '-noout', '-text', '-in', join(dir, 'leaf.crt')])).stdout;
      expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
      expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
      expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Server Authentication/);
      expect(text).toMatch(/X509v3 Subject Alternative Name:\s+DNS:node-b, IP Address:10\.0\.0\.2/);
      expect(text).toMatch(/Signature Algorithm: sha256WithRSAEncryption/);
      expect((await run('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'leaf.crt')])).stdout).toContain('leaf.crt: OK');
      for (const kind of ['ecdsa-p256', 'rsa-2048'] as const) {
        const keys = await generateKeyPair(kind);
        await writeFile(join(dir, `${kind}.csr`), await createCertificateRequest({ commonName: 'system:node:n', organizations: ['system:nodes'] }, keys.keys, { dnsNames: ['n'] }));
        const verified = await run('openssl', ['req', '-verify', '-noout', '-text', '-in', join(dir, `${kind}.csr`)]);
        expect(`${verified.stdout}${verified.stderr}`).toMatch(/verify OK/);
        expect(verified.stdout).toMatch(/Subject: O ?= ?system:nodes, CN ?= ?system:node:n/);
      }
    });
  });
});

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').replace(/(..)(?!$)/g, '$1 ');
const der = (pem: string) => new Uint8Array(pemToDer(pem, 'CERTIFICATE'));
const TBS_FIELDS = ['version', 'serial', 'signature', 'issuer', 'validity', 'subject', 'subjectPublicKeyInfo', 'extensions'] as const;

/** A field of a v3 certificate's tbsCertificate, read by the strict reader. */
function tbsField(pem: string, field: (typeof TBS_FIELDS)[number]): DerNode {
  return parseStrictDer(der(pem)).children[0]!.children[TBS_FIELDS.indexOf(field)]!;
}

/** The extensions by their OID's content bytes: `critical ` when marked so, then the value's bytes. */
function extensions(pem: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const ext of tbsField(pem, 'extensions').children[0]!.children) {
    const critical = ext.children.length === 3;
    if (critical) expect(hex(ext.children[1]!.encoding)).toBe('01 01 ff');
    found[hex(ext.children[0]!.content)] = `${critical ? 'critical ' : ''}${hex(ext.children[ext.children.length - 1]!.content)}`;
  }
  return found;
}

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kubelet-ts-x509-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
