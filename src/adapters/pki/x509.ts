/**
 * X.509 in process: key pairs, certificates and certificate requests, over node:crypto's key
 * objects (keys, signatures, SubjectPublicKeyInfo) with the ASN.1 structures written by ./der.ts.
 * Node can read certificates (crypto.X509Certificate) but cannot write them, spawning `openssl`
 * for it is slow on a cold start, and an ASN.1 library's code stays in the process for its life
 * once a first start or a bootstrap has loaded it; these structures are few and fixed.
 *
 * What is written is what client-go's certificate helpers write, as far as a TLS peer can tell:
 * keys as PEM in their traditional form (`EC PRIVATE KEY`, `RSA PRIVATE KEY`), names with one
 * attribute per RDN (organizations before the common name, as Go's pkix.Name), SANs as DNS names
 * and IP addresses, a critical key usage and basic constraints, a subject key identifier on a CA
 * and the issuer's as authority key identifier.
 */
import {
  KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPair as generateKeyObjects, randomBytes, sign, verify,
} from 'node:crypto';
import { formatIp, isIPv4, parseIpSloppy } from '../../domain/net/ip-address.js';
import {
  TAG, bitString, boolean, children, childOf, explicit, implicit, nullElement, octetString, oid, oidText, readDer, sequence, set,
  setContent, smallInteger, time, unsignedInteger, utf8String, type DerElement,
} from './der.js';

/** ECDSA P-256 for the kubelet's client and serving keys (Go's certificate manager); RSA 2048 for the self-signed pair (Go's certutil). */
export type KeyKind = 'ecdsa-p256' | 'rsa-2048';

export interface SigningKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface KeyPair {
  keys: SigningKeys;
  /** The private key as PEM: `EC PRIVATE KEY` (SEC 1) or `RSA PRIVATE KEY` (PKCS #1), as Go writes them. */
  privateKeyPem: string;
}

/** A new key pair; generated off the main thread (on libuv's pool). */
export async function generateKeyPair(kind: KeyKind): Promise<KeyPair> {
  const keys = await new Promise<SigningKeys>((resolve, reject) => {
    const done = (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) => (err ? reject(err) : resolve({ publicKey, privateKey }));
    if (kind === 'ecdsa-p256') generateKeyObjects('ec', { namedCurve: 'P-256' }, done);
    else generateKeyObjects('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done);
  });
  const type = kind === 'ecdsa-p256' ? 'sec1' : 'pkcs1';
  return { keys, privateKeyPem: keys.privateKey.export({ type, format: 'pem' }).toString() };
}

/** A PEM private key (SEC 1, PKCS #1 or PKCS #8; EC P-256 or RSA) as a signing key pair. */
export async function importPrivateKey(pem: string): Promise<SigningKeys> {
  const privateKey = createPrivateKey(pem);
  signatureAlgorithm(privateKey);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  extensionRequest: '1.2.840.113549.1.9.14',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
} as const;

/** The AlgorithmIdentifier a key signs with: ECDSA's has no parameters (RFC 5758), RSA's a NULL (RFC 4055). */
function signatureAlgorithm(key: KeyObject): Buffer {
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return sequence(oid(OID.ecdsaWithSha256));
  if (key.asymmetricKeyType === 'rsa') return sequence(oid(OID.sha256WithRsa), nullElement());
  throw new Error(`unsupported key: ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ''}`.trim());
}

/** The hash each signature algorithm a request may carry uses (what Go's x509 verifies). */
const SIGNATURE_HASHES: Record<string, string> = {
  [OID.ecdsaWithSha256]: 'sha256', '1.2.840.10045.4.3.3': 'sha384', '1.2.840.10045.4.3.4': 'sha512',
  [OID.sha256WithRsa]: 'sha256', '1.2.840.113549.1.1.12': 'sha384', '1.2.840.113549.1.1.13': 'sha512',
};

/** `toBeSigned` wrapped with its algorithm and signature (a Certificate and a CertificationRequest have this shape). */
async function signed(toBeSigned: Buffer, key: KeyObject): Promise<Buffer> {
  const algorithm = signatureAlgorithm(key);
  const signature = await new Promise<Buffer>((resolve, reject) => {
    sign('sha256', toBeSigned, { key, dsaEncoding: 'der' }, (err, sig) => (err ? reject(err) : resolve(sig)));
  });
  return sequence(toBeSigned, algorithm, bitString(signature));
}

/** A distinguished name: the common name and the organizations (CN = user, O = groups for the API server). */
export interface DistinguishedName {
  commonName: string;
  organizations?: readonly string[];
}

function nameOf(name: DistinguishedName): Buffer {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(...(name.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, name.commonName));
}

/** A Name's common name and organizations, read back (for a CSR's subject). */
function readName(name: DerElement): DistinguishedName {
  const read = { commonName: '', organizations: [] as string[] };
  for (const rdn of children(name)) {
    for (const attribute of children(rdn)) {
      const [type, value] = children(attribute);
      if (!type || !value) continue;
      const text = value.tag === TAG.bmpString ? Buffer.from(value.content).swap16().toString('utf16le') : Buffer.from(value.content).toString('utf8');
      const dotted = oidText(type.content);
      if (dotted === OID.commonName && read.commonName === '') read.commonName = text;
      if (dotted === OID.organization) read.organizations.push(text);
    }
  }
  return read;
}

/** Subject alternative names: DNS names and IP addresses (v4 or v6, read as ParseIPSloppy reads them). */
export interface AltNames {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/** GeneralName's dNSName and iPAddress choices. */
const GENERAL_NAME = { dns: 2, ip: 7 } as const;

/** An IP SAN's bytes: 4 for IPv4 (Go's x509 marshals To4() when it has one), 16 for IPv6. */
function ipBytes(text: string): Uint8Array {
  const ip = parseIpSloppy(text);
  if (!ip) throw new Error(`not an IP address: ${text}`);
  return Uint8Array.from(isIPv4(ip) ? ip.bytes.slice(12) : ip.bytes);
}

function ipText(bytes: Uint8Array): string {
  return formatIp({ bytes: bytes.length === 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytes] : [...bytes] });
}

/** An Extension: DER leaves `critical` out when it is false, its default. */
function extension(extnID: string, critical: boolean, value: Uint8Array): Buffer {
  return critical ? sequence(oid(extnID), boolean(true), octetString(value)) : sequence(oid(extnID), octetString(value));
}

function altNamesExtension(names: AltNames): Buffer | null {
  const general = [
    ...(names.dnsNames ?? []).map((name) => implicit(GENERAL_NAME.dns, Buffer.from(name, 'latin1'))),
    ...(names.ipAddresses ?? []).map((ip) => implicit(GENERAL_NAME.ip, ipBytes(ip))),
  ];
  return general.length === 0 ? null : extension(OID.subjectAltName, false, sequence(...general));
}

/** Key usages by their bit in the KeyUsage BIT STRING (RFC 5280 4.2.1.3). */
export type KeyUsage = 'digitalSignature' | 'keyEncipherment' | 'keyCertSign';
const KEY_USAGE_BITS: Record<KeyUsage, number> = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5 };

/** One byte; DER drops the trailing zero bits, so the unused bits run from the highest usage's. */
function keyUsageExtension(usages: readonly KeyUsage[]): Buffer {
  const bits = usages.map((u) => KEY_USAGE_BITS[u]);
  let byte = 0;
  for (const bit of bits) byte |= 0x80 >> bit;
  return extension(OID.keyUsage, true, bitString(Uint8Array.of(byte), 7 - Math.max(...bits)));
}

export interface CertificateSpec {
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  isCA?: boolean;
  keyUsages: readonly KeyUsage[];
  extendedKeyUsages?: readonly ('serverAuth' | 'clientAuth')[];
  altNames?: AltNames;
}

/** Who signs: a CA's certificate and key, or nothing for a self-signed certificate (then the spec's own key signs). */
export interface Issuer {
  certificatePem: string;
  privateKey: KeyObject;
}

/** A key identifier: the SHA-1 of the SubjectPublicKeyInfo's key bits (RFC 5280 4.2.1.2 (1), as Go computes it). */
function keyIdOf(spki: DerElement): Buffer {
  const bits = childOf(spki, 1, TAG.bitString, 'subjectPublicKey');
  return createHash('sha1').update(bits.content.subarray(1)).digest();
}

/** An issuer certificate's subject (its exact bytes, as the issued certificate's issuer) and its SubjectPublicKeyInfo. */
function readIssuer(pem: string): { subject: Uint8Array; spki: DerElement } {
  const certificate = readDer(new Uint8Array(pemToDer(pem, 'CERTIFICATE')));
  const tbs = childOf(certificate, 0, TAG.sequence, 'tbsCertificate');
  // The version is `[0] EXPLICIT`, absent for v1; then serial, signature, issuer, validity, subject, key.
  const first = children(tbs)[0]?.tag === 0xa0 ? 1 : 0;
  return { subject: childOf(tbs, first + 4, TAG.sequence, 'subject').encoding, spki: childOf(tbs, first + 5, TAG.sequence, 'subjectPublicKeyInfo') };
}

/** A signed certificate as PEM. A self-signed one needs the key pair's private key as `selfKey`. */
export async function createCertificate(spec: CertificateSpec, signer: Issuer | { selfKey: KeyObject }): Promise<string> {
  // A random positive 128-bit serial, as Go's signers use. DER wants an INTEGER's shortest form:
  // a first byte of 0 followed by one below 0x80 is a padding OpenSSL refuses ("illegal padding"),
  // so the first byte is kept in 0x40-0x7f: non-zero and positive, always 16 bytes.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const spkiBytes = spec.publicKey.export({ type: 'spki', format: 'der' });
  const ownKeyId = keyIdOf(readDer(spkiBytes));
  const subject = nameOf(spec.subject);
  let issuerName: Uint8Array;
  let authorityKeyId: Buffer;
  let signingKey: KeyObject;
  if ('selfKey' in signer) {
    issuerName = subject;
    authorityKeyId = ownKeyId;
    signingKey = signer.selfKey;
  } else {
    const issuer = readIssuer(signer.certificatePem);
    issuerName = issuer.subject;
    authorityKeyId = keyIdOf(issuer.spki);
    signingKey = signer.privateKey;
  }
  const extensions = [
    keyUsageExtension(spec.keyUsages),
    extension(OID.basicConstraints, true, spec.isCA ? sequence(boolean(true)) : sequence()),
  ];
  if (spec.extendedKeyUsages?.length) extensions.push(extension(OID.extKeyUsage, false, sequence(...spec.extendedKeyUsages.map((u) => oid(OID[u])))));
  if (spec.isCA) extensions.push(extension(OID.subjectKeyIdentifier, false, octetString(ownKeyId)));
  extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, authorityKeyId))));
  const altNames = spec.altNames ? altNamesExtension(spec.altNames) : null;
  if (altNames) extensions.push(altNames);
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    signatureAlgorithm(signingKey),
    issuerName,
    sequence(time(spec.notBefore), time(spec.notAfter)),
    subject,
    spkiBytes,
    explicit(3, sequence(...extensions)),
  );
  return derToPem(await signed(tbs, signingKey), 'CERTIFICATE');
}

/** A PKCS #10 certificate request as PEM, signed by the key pair it carries. */
export async function createCertificateRequest(subject: DistinguishedName, keys: SigningKeys, altNames?: AltNames): Promise<string> {
  const san = altNames ? altNamesExtension(altNames) : null;
  // RFC 2986 makes `attributes` mandatory: an empty SET when there are none. Go's x509 (every API
  // server) refuses a request without it, where OpenSSL forgives.
  const attributes = san ? [sequence(oid(OID.extensionRequest), set(sequence(san)))] : [];
  const info = sequence(
    smallInteger(0), // v1
    nameOf(subject),
    keys.publicKey.export({ type: 'spki', format: 'der' }),
    implicit(0, setContent(attributes), true),
  );
  return derToPem(await signed(info, keys.privateKey), 'CERTIFICATE REQUEST');
}

/** A certificate request read back: its subject, its key, its requested names; null when its signature does not verify. */
export interface ParsedCertificateRequest {
  subject: DistinguishedName;
  publicKey: KeyObject;
  altNames: { dnsNames: string[]; ipAddresses: string[] };
}

export async function parseCertificateRequest(pem: string): Promise<ParsedCertificateRequest | null> {
  const request = readDer(new Uint8Array(pemToDer(pem, 'CERTIFICATE REQUEST')));
  const info = childOf(request, 0, TAG.sequence, 'certificationRequestInfo');
  const algorithm = childOf(request, 1, TAG.sequence, 'signatureAlgorithm');
  const signature = childOf(request, 2, TAG.bitString, 'signature');
  const fields = children(info);
  const spki = childOf(info, 2, TAG.sequence, 'subjectPKInfo');
  const publicKey = createPublicKey({ key: Buffer.from(spki.encoding), format: 'der', type: 'spki' });
  const hash = SIGNATURE_HASHES[oidText(childOf(algorithm, 0, TAG.oid, 'signatureAlgorithm.algorithm').content)];
  if (!hash || !(await verified(hash, info.encoding, publicKey, signature.content.subarray(1)))) return null;
  const altNames = { dnsNames: [] as string[], ipAddresses: [] as string[] };
  const attributes = fields[3]?.tag === 0xa0 ? children(fields[3]) : [];
  for (const attribute of attributes) {
    const [type, values] = children(attribute);
    if (!type || !values || oidText(type.content) !== OID.extensionRequest) continue;
    for (const extensions of children(values)) {
      for (const ext of children(extensions)) {
        const parts = children(ext);
        if (oidText(parts[0]!.content) !== OID.subjectAltName) continue;
        for (const name of children(readDer(parts[parts.length - 1]!.content))) {
          if (name.tag === (0x80 | GENERAL_NAME.dns)) altNames.dnsNames.push(Buffer.from(name.content).toString('latin1'));
          if (name.tag === (0x80 | GENERAL_NAME.ip)) altNames.ipAddresses.push(ipText(name.content));
        }
      }
    }
  }
  return { subject: readName(childOf(info, 1, TAG.sequence, 'subject')), publicKey, altNames };
}

/** Whether the signature verifies; a malformed one (an ECDSA signature that is not DER) does not. */
function verified(hash: string, data: Uint8Array, key: KeyObject, signature: Uint8Array): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      verify(hash, data, { key, dsaEncoding: 'der' }, signature, (err, ok) => resolve(!err && ok));
    } catch {
      resolve(false);
    }
  });
}

export function derToPem(der: ArrayBuffer | Uint8Array, label: string): string {
  const base64 = Buffer.from(der instanceof ArrayBuffer ? new Uint8Array(der) : der).toString('base64');
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

/** The first PEM block with `label`, decoded; throws naming the label when there is none. */
export function pemToDer(pem: string, label: string): ArrayBuffer {
  const match = new RegExp(`-----BEGIN ${label}-----([^-]+)-----END ${label}-----`).exec(pem);
  if (!match) throw new Error(`no ${label} PEM block`);
  const bytes = Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
