/**
 * The kubelet's serving certificate when neither tlsCertFile nor tlsPrivateKeyFile is set: reuse
 * `<certDir>/kubelet.crt` and `kubelet.key` when both are readable, else generate them, as Go's
 * kubelet does on first start (cmd/kubelet/app/server.go, certutil.GenerateSelfSignedCertKey):
 * a throw-away CA `<host>-ca@<unix time>` signs the serving certificate `<host>@<unix time>`, both
 * RSA 2048 and valid one year from an hour ago; kubelet.crt holds the serving certificate then the
 * CA's, kubelet.key the serving key (PKCS #1). Made in process (../../pki/x509.ts, loaded only
 * here); the keys are generated on libuv's pool, off the main thread. RSA, as Go, although RSA key
 * generation costs far more CPU than ECDSA's (docs/FINDINGS.md): a tlsCipherSuites list of
 * ECDHE_RSA suites only (as hardening guides write them) cannot be served with an ECDSA key.
 *
 * Differs from Go, stated: Go's SANs are the hostname alone (an IP SAN when the hostname is an
 * IP); we add the node IPs, which clients verifying the kubelet by address need. Files:
 * certificate 0644, key 0600, directory 0755, as Go writes them.
 */
import { access, chmod, constants, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import { formatIp, parseIpSloppy } from '../../../domain/net/ip-address.js';
import { makeDirectories } from '../../fs/make-directories.js';

export interface ServingCertificate {
  certFile: string;
  keyFile: string;
  /** True when this call generated the pair. */
  generated: boolean;
}

async function readable(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The SANs: the hostname (as DNS, or IP when it is one, read as client-go's certificate helper
 * reads it, with ParseIPSloppy) and each node IP, in Go's canonical form (`010.0.0.1` is 10.0.0.1).
 */
export function subjectAltNames(hostname: string, nodeIPs: readonly string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const host = parseIpSloppy(hostname);
  const ipAddresses = host ? [formatIp(host)] : [];
  for (const text of nodeIPs) {
    const ip = parseIpSloppy(text);
    if (ip && !ipAddresses.includes(formatIp(ip))) ipAddresses.push(formatIp(ip));
  }
  return { dnsNames: host ? [] : [hostname], ipAddresses };
}

/** Go's self-signed pair: kubelet.crt's text (serving certificate, then the CA's) and the serving key. */
export async function generateSelfSignedPair(hostname: string, nodeIPs: readonly string[], nowSeconds: number): Promise<{ certPem: string; keyPem: string }> {
  const { createCertificate, generateKeyPair } = await import('../../pki/x509.js');
  const [caKeys, servingKeys] = await Promise.all([generateKeyPair('rsa-2048'), generateKeyPair('rsa-2048')]);
  const notBefore = new Date((nowSeconds - 3600) * 1000);
  const notAfter = new Date((nowSeconds - 3600 + 365 * 24 * 3600) * 1000);
  const caPem = await createCertificate(
    { subject: { commonName: `${hostname}-ca@${nowSeconds}` }, notBefore, notAfter, publicKey: caKeys.keys.publicKey, isCA: true, keyUsages: ['keyEncipherment', 'digitalSignature', 'keyCertSign'] },
    { selfKey: caKeys.keys.privateKey },
  );
  const servingPem = await createCertificate(
    {
      subject: { commonName: `${hostname}@${nowSeconds}` }, notBefore, notAfter, publicKey: servingKeys.keys.publicKey,
      keyUsages: ['keyEncipherment', 'digitalSignature'], extendedKeyUsages: ['serverAuth'], altNames: subjectAltNames(hostname, nodeIPs),
    },
    { certificatePem: caPem, privateKey: caKeys.keys.privateKey },
  );
  return { certPem: servingPem + caPem, keyPem: servingKeys.privateKeyPem };
}

export async function ensureSelfSignedCertificate(opts: {
  certDir: string;
  hostname: string;
  nodeIPs: readonly string[];
  /** Epoch seconds for the CN and the validity; the caller's clock. */
  nowSeconds: number;
}): Promise<ServingCertificate> {
  const certFile = join(opts.certDir, 'kubelet.crt');
  const keyFile = join(opts.certDir, 'kubelet.key');
  if ((await readable(certFile)) && (await readable(keyFile))) return { certFile, keyFile, generated: false };
  if (!/^[A-Za-z0-9.:_-]+$/.test(opts.hostname)) {
    throw new KubeletError('KLT_ERR_TLS_CONFIG', `cannot make a certificate for hostname ${JSON.stringify(opts.hostname)}`);
  }
  try {
    await makeDirectories(opts.certDir, 0o755);
    // Write beside the final names, then rename: a crash never leaves a certificate without its key.
    const tmpCert = `${certFile}.tmp-${process.pid}`;
    const tmpKey = `${keyFile}.tmp-${process.pid}`;
    const pair = await generateSelfSignedPair(opts.hostname, opts.nodeIPs, opts.nowSeconds);
    await writeFile(tmpKey, pair.keyPem, { mode: 0o600 });
    await writeFile(tmpCert, pair.certPem, { mode: 0o644 });
    await chmod(tmpKey, 0o600);
    await chmod(tmpCert, 0o644);
    await rename(tmpKey, keyFile);
    await rename(tmpCert, certFile);
  } catch (err) {
    await rm(`${certFile}.tmp-${process.pid}`, { force: true });
    await rm(`${keyFile}.tmp-${process.pid}`, { force: true });
    throw new KubeletError('KLT_ERR_TLS_CONFIG', `cannot generate a self-signed certificate in ${opts.certDir}: ${(err as Error).message}`, { cause: err });
  }
  return { certFile, keyFile, generated: true };
}
