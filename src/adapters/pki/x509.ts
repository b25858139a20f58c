/**
 * X.509 in process: key pairs, certificates and certificate requests, over Node's WebCrypto with
 * pkijs for the ASN.1 structures (Node can read certificates, crypto.X509Certificate, but cannot
 * write them, and spawning `openssl` for it is slow on a cold start). This module is imported only
 * where a certificate is made (the first start with an empty cert dir, a bootstrap, a rotation):
 * pkijs and asn1js are slow to load (docs/FINDINGS.md).
 *
 * What is written is what client-go's certificate helpers write, as far as a TLS peer can tell:
 * keys as PEM in their traditional form (`EC PRIVATE KEY`, `RSA PRIVATE KEY`), SANs as DNS names
 * and IP addresses, a subject key identifier on a CA and the issuer's as authority key identifier.
 */
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { formatIp, isIPv4, parseIpSloppy } from '../../domain/net/ip-address.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

// Cast: Node's webcrypto is the Web Crypto API, typed by @types/node apart from the DOM's Crypto
// that pkijs names; the two declarations differ, not the object.
pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] })); // cast: see above

/** ECDSA P-256 for the kubelet's client and serving keys (Go's certificate manager); RSA 2048 for the self-signed pair (Go's certutil). */
export type KeyKind = 'ecdsa-p256' | 'rsa-2048';

export interface KeyPair {
  keys: CryptoKeyPair;
  /** The private key as PEM: `EC PRIVATE KEY` (SEC 1) or `RSA PRIVATE KEY` (PKCS #1), as Go writes them. */
  privateKeyPem: string;
}

const ALGORITHMS: Record<KeyKind, webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams> = {
  'ecdsa-p256': { name: 'ECDSA', namedCurve: 'P-256' },
  'rsa-2048': { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
};

/** A new key pair; generated off the main thread (WebCrypto's jobs run on libuv's pool). */
export async function generateKeyPair(kind: KeyKind): Promise<KeyPair> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHMS[kind], true, ['sign', 'verify'])) as CryptoKeyPair;
  return { keys, privateKeyPem: privateKeyPem(keys.privateKey) };
}

function privateKeyPem(key: CryptoKey): string {
  const type = key.algorithm.name === 'ECDSA' ? 'sec1' : 'pkcs1';
  return KeyObject.from(key).export({ type, format: 'pem' }).toString();
}

/** A PEM private key (SEC 1, PKCS #1 or PKCS #8; EC P-256 or RSA) as a signing key pair. */
export async function importPrivateKey(pem: string): Promise<CryptoKeyPair> {
  const { createPrivateKey, createPublicKey } = await import('node:crypto');
  const privateKey = createPrivateKey(pem);
  const kind: KeyKind = privateKey.asymmetricKeyType === 'ec' ? 'ecdsa-p256' : 'rsa-2048';
  const algorithm = kind === 'ecdsa-p256' ? ALGORITHMS[kind] : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return {
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, algorithm, true, ['verify']),
  };
}

/** A distinguished name: the common name and the organizations (CN = user, O = groups for the API server). */
export interface DistinguishedName {
  commonName: string;
  organizations?: readonly string[];
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
} as const;

/**
 * A name with one attribute per RDN, as Go's pkix.Name marshals it (organizations before the common
 * name). pkijs would put every attribute into one multi-valued RDN (`O=... + CN=...`), so the
 * encoding is built here and handed over as the name's bytes.
 */
function nameOf(name: DistinguishedName): pkijs.RelativeDistinguishedNames {
  const typesAndValues = [
    ...(name.organizations ?? []).map((o) => new pkijs.AttributeTypeAndValue({ type: OID.organization, value: new asn1js.Utf8String({ value: o }) })),
    new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value: name.commonName }) }),
  ];
  const encoded = new asn1js.Sequence({ value: typesAndValues.map((tv) => new asn1js.Set({ value: [tv.toSchema()] })) }).toBER(false);
  return new pkijs.RelativeDistinguishedNames({ typesAndValues, valueBeforeDecode: encoded });
}

/** The name's common name and organizations, read back (for a CSR's subject). */
export function readName(names: pkijs.RelativeDistinguishedNames): DistinguishedName {
  const values = (type: string) => names.typesAndValues.filter((tv) => tv.type === type).map((tv) => String(tv.value.valueBlock.value));
  return { commonName: values(OID.commonName)[0] ?? '', organizations: values(OID.organization) };
}

/** Subject alternative names: DNS names and IP addresses (v4 or v6, read as ParseIPSloppy reads them). */
export interface AltNames {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/** An IP SAN's bytes: 4 for IPv4 (Go's x509 marshals To4() when it has one), 16 for IPv6. */
function ipBytes(text: string): Uint8Array {
  const ip = parseIpSloppy(text);
  if (!ip) throw new Error(`not an IP address: ${text}`);
  return Uint8Array.from(isIPv4(ip) ? ip.bytes.slice(12) : ip.bytes);
}

function altNamesExtension(names: AltNames): pkijs.Extension | null {
  const general = [
    ...(names.dnsNames ?? []).map((value) => new pkijs.GeneralName({ type: 2, value })),
    ...(names.ipAddresses ?? []).map((ip) => new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipBytes(ip) }) })),
  ];
  if (general.length === 0) return null;
  return extension(OID.subjectAltName, false, new pkijs.GeneralNames({ names: general }).toSchema());
}

function extension(extnID: string, critical: boolean, value: { toBER(sizeOnly?: boolean): ArrayBuffer }): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

/** Key usages by their bit in the KeyUsage BIT STRING (RFC 5280 4.2.1.3). */
export type KeyUsage = 'digitalSignature' | 'keyEncipherment' | 'keyCertSign';
const KEY_USAGE_BITS: Record<KeyUsage, number> = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5 };

function keyUsageExtension(usages: readonly KeyUsage[]): pkijs.Extension {
  const bits = usages.map((u) => KEY_USAGE_BITS[u]);
  const highest = Math.max(...bits);
  let byte = 0;
  for (const bit of bits) byte |= 0x80 >> bit;
  return extension(OID.keyUsage, true, new asn1js.BitString({ valueHex: new Uint8Array([byte]), unusedBits: 7 - highest }));
}

export interface CertificateSpec {
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  publicKey: CryptoKey | pkijs.PublicKeyInfo;
  isCA?: boolean;
  keyUsages: readonly KeyUsage[];
  extendedKeyUsages?: readonly ('serverAuth' | 'clientAuth')[];
  altNames?: AltNames;
}

/** Who signs: a CA's certificate and key, or nothing for a self-signed certificate (then the spec's own key signs). */
export interface Issuer {
  certificatePem: string;
  privateKey: CryptoKey;
}

const sha1 = async (bytes: ArrayBuffer) => new Uint8Array(await webcrypto.subtle.digest('SHA-1', bytes));

/** A signed certificate as PEM. A self-signed one needs the key pair's private key as `selfKey`. */
export async function createCertificate(spec: CertificateSpec, signer: Issuer | { selfKey: CryptoKey }): Promise<string> {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  // A random positive 128-bit serial, as Go's signers use. DER wants an INTEGER's shortest form:
  // a first byte of 0 followed by one below 0x80 is a padding OpenSSL refuses ("illegal padding",
  // one certificate in 512 before), so the first byte is kept in 0x40-0x7f: non-zero and positive.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  cert.serialNumber = new asn1js.Integer({ valueHex: serial });
  cert.subject = nameOf(spec.subject);
  cert.notBefore.value = spec.notBefore;
  cert.notAfter.value = spec.notAfter;
  if (spec.publicKey instanceof pkijs.PublicKeyInfo) cert.subjectPublicKeyInfo = spec.publicKey;
  else await cert.subjectPublicKeyInfo.importKey(spec.publicKey);
  const ownKeyId = await sha1(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView.slice().buffer);
  let signingKey: CryptoKey;
  let authorityKeyId: Uint8Array;
  if ('selfKey' in signer) {
    cert.issuer = nameOf(spec.subject);
    signingKey = signer.selfKey;
    authorityKeyId = ownKeyId;
  } else {
    const issuer = pkijs.Certificate.fromBER(pemToDer(signer.certificatePem, 'CERTIFICATE'));
    cert.issuer = issuer.subject;
    signingKey = signer.privateKey;
    authorityKeyId = await sha1(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView.slice().buffer);
  }
  const extensions = [
    keyUsageExtension(spec.keyUsages),
    extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: spec.isCA === true }).toSchema()),
  ];
  if (spec.extendedKeyUsages?.length) {
    extensions.push(extension(OID.extKeyUsage, false, new pkijs.ExtKeyUsage({ keyPurposes: spec.extendedKeyUsages.map((u) => OID[u]) }).toSchema()));
  }
  if (spec.isCA) extensions.push(extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: ownKeyId })));
  extensions.push(extension(OID.authorityKeyIdentifier, false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: authorityKeyId }) }).toSchema()));
  const altNames = spec.altNames ? altNamesExtension(spec.altNames) : null;
  if (altNames) extensions.push(altNames);
  cert.extensions = extensions;
  await cert.sign(signingKey, 'SHA-256');
  return derToPem(cert.toSchema(true).toBER(false), 'CERTIFICATE');
}

/** A PKCS #10 certificate request as PEM, signed by the key pair it carries. */
export async function createCertificateRequest(subject: DistinguishedName, keys: CryptoKeyPair, altNames?: AltNames): Promise<string> {
  const csr = new pkijs.CertificationRequest();
  csr.subject = nameOf(subject);
  await csr.subjectPublicKeyInfo.importKey(keys.publicKey);
  const san = altNames ? altNamesExtension(altNames) : null;
  // RFC 2986 makes `attributes` mandatory: an empty SET when there are none. pkijs leaves the field
  // out unless it is set, which OpenSSL forgives and Go's x509 (every API server) refuses.
  csr.attributes = san ? [new pkijs.Attribute({ type: OID.extensionRequest, values: [new pkijs.Extensions({ extensions: [san] }).toSchema()] })] : [];
  await csr.sign(keys.privateKey, 'SHA-256');
  return derToPem(csr.toSchema(true).toBER(false), 'CERTIFICATE REQUEST');
}

/** A certificate request read back: its subject, its key, its requested names; null when its signature does not verify. */
export interface ParsedCertificateRequest {
  subject: DistinguishedName;
  publicKey: pkijs.PublicKeyInfo;
  altNames: { dnsNames: string[]; ipAddresses: string[] };
}

export async function parseCertificateRequest(pem: string): Promise<ParsedCertificateRequest | null> {
  const csr = pkijs.CertificationRequest.fromBER(pemToDer(pem, 'CERTIFICATE REQUEST'));
  if (!(await csr.verify())) return null;
  const altNames = { dnsNames: [] as string[], ipAddresses: [] as string[] };
  for (const attr of csr.attributes ?? []) {
    if (attr.type !== OID.extensionRequest) continue;
    for (const ext of new pkijs.Extensions({ schema: attr.values[0] }).extensions) {
      if (ext.extnID !== OID.subjectAltName) continue;
      for (const name of (ext.parsedValue as pkijs.AltName).altNames) {
        if (name.type === 2) altNames.dnsNames.push(String(name.value));
        if (name.type === 7) altNames.ipAddresses.push(ipText(new Uint8Array((name.value as asn1js.OctetString).valueBlock.valueHexView)));
      }
    }
  }
  return { subject: readName(csr.subject), publicKey: csr.subjectPublicKeyInfo, altNames };
}

function ipText(bytes: Uint8Array): string {
  return formatIp({ bytes: bytes.length === 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytes] : [...bytes] });
}

export function derToPem(der: ArrayBuffer, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

/** The first PEM block with `label`, decoded; throws naming the label when there is none. */
export function pemToDer(pem: string, label: string): ArrayBuffer {
  const match = new RegExp(`-----BEGIN ${label}-----([^-]+)-----END ${label}-----`).exec(pem);
  if (!match) throw new Error(`no ${label} PEM block`);
  const bytes = Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
