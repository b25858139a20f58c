/**
 * A throw-away PKI for the test API server's TLS mode, made in process (src/adapters/pki/x509.ts)
 * in a temp dir: a CA, a serving certificate for 127.0.0.1 signed by it, client certificates on
 * demand whose subject says who the client is (CN = user, O = groups), as the API server's x509
 * authenticator reads them, and the signing of certificate requests (the CSR signer's job).
 * createTestCa alone gives a plain-HTTP server the CA it publishes as kube-root-ca.crt.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificate, generateKeyPair, type CertificateSpec, type Issuer, type ParsedCertificateRequest,
} from '../../src/adapters/pki/x509.js';

export interface ClientCertificate {
  certFile: string;
  keyFile: string;
}

export interface TestPki {
  dir: string;
  caFile: string;
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** A client certificate signed by the CA for `user` in `groups`, valid a day. */
  issueClientCertificate(user: string, groups?: readonly string[]): Promise<ClientCertificate>;
  /** A certificate for a verified request, signed by the CA, with these usages and validity. */
  signRequest(request: ParsedCertificateRequest, usage: 'clientAuth' | 'serverAuth', notAfter: Date): Promise<string>;
}

const DAY_MS = 24 * 3600_000;

/** A self-signed CA valid a day (from an hour ago): its certificate and the issuer that signs with it. */
export async function createTestCa(): Promise<Issuer> {
  const caKeys = await generateKeyPair('ecdsa-p256');
  const now = Date.now();
  const certificatePem = await createCertificate(
    { subject: { commonName: 'kubelet-ts-test-ca' }, notBefore: new Date(now - 3600_000), notAfter: new Date(now + DAY_MS), publicKey: caKeys.keys.publicKey, isCA: true, keyUsages: ['digitalSignature', 'keyCertSign'] },
    { selfKey: caKeys.keys.privateKey },
  );
  return { certificatePem, privateKey: caKeys.keys.privateKey };
}

export async function createTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-apiserver-pki-'));
  const issuer = await createTestCa();
  const caPem = issuer.certificatePem;
  const now = Date.now();
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, caPem);
  const issue = (spec: Omit<CertificateSpec, 'notBefore' | 'keyUsages'> & { notAfter: Date; notBefore?: Date }) =>
    createCertificate({ notBefore: new Date(Date.now() - 60_000), keyUsages: ['digitalSignature', 'keyEncipherment'], ...spec }, issuer);

  const serverKeys = await generateKeyPair('ecdsa-p256');
  const serverCertPem = await issue({
    subject: { commonName: 'kube-apiserver' }, notAfter: new Date(now + DAY_MS), publicKey: serverKeys.keys.publicKey,
    extendedKeyUsages: ['serverAuth'], altNames: { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] },
  });
  let clients = 0;
  return {
    dir,
    caFile,
    caPem,
    serverCertPem,
    serverKeyPem: serverKeys.privateKeyPem,
    async issueClientCertificate(user, groups = []) {
      const keys = await generateKeyPair('ecdsa-p256');
      const pem = await issue({
        subject: { commonName: user, organizations: groups }, notAfter: new Date(Date.now() + DAY_MS), publicKey: keys.keys.publicKey, extendedKeyUsages: ['clientAuth'],
      });
      const name = `client-${++clients}`;
      const certFile = join(dir, `${name}.crt`);
      const keyFile = join(dir, `${name}.key`);
      writeFileSync(certFile, pem);
      writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 });
      return { certFile, keyFile };
    },
    // Not backdated (a real signer backdates by up to 5 minutes): a test's short validity stays what it asked for.
    signRequest: (request, usage, notAfter) => issue({
      subject: request.subject, notBefore: new Date(Date.now() - 1000), notAfter, publicKey: request.publicKey, extendedKeyUsages: [usage],
      ...(usage === 'serverAuth' ? { altNames: request.altNames } : {}),
    }),
  };
}
