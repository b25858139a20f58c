/**
 * The kubelet's serving certificate when neither tlsCertFile nor tlsPrivateKeyFile is set: reuse
 * `<certDir>/kubelet.crt` and `kubelet.key` when both are readable, else generate them, as Go's
 * kubelet does on first start (cmd/kubelet/app/server.go, certutil.GenerateSelfSignedCertKey).
 *
 * Node 20 can make keys but cannot write an X.509 certificate (crypto.X509Certificate only reads),
 * so the certificate is made by `openssl req -x509` in a child process; `openssl` must be on PATH.
 *
 * Differences from Go, stated: Go makes a throw-away CA (`<host>-ca@<unix>`) and signs the serving
 * certificate with it, writing both into kubelet.crt; we write one self-signed certificate. The
 * subject CN is Go's `<hostname>@<unix time>`, RSA 2048, valid one year. Go's SANs are the hostname
 * alone (an IP SAN when the hostname is an IP); we add the node IPs, which clients verifying the
 * kubelet by address need. Files: certificate 0644, key 0600, directory 0755, as Go writes them.
 */
import { execFile } from 'node:child_process';
import { access, chmod, constants, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeletError } from '../../../domain/errors.js';
import { formatIp, parseIpSloppy } from '../../../domain/net/ip-address.js';
import { makeDirectories } from '../../fs/make-directories.js';

const run = promisify(execFile);

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
 * `subjectAltName` value: the hostname (as DNS, or IP when it is one, read as client-go's
 * certificate helper reads it, with ParseIPSloppy) and each node IP, written in Go's canonical
 * form so OpenSSL reads `010.0.0.1` as 10.0.0.1.
 */
export function subjectAltNames(hostname: string, nodeIPs: readonly string[]): string {
  const host = parseIpSloppy(hostname);
  const names = [host ? `IP:${formatIp(host)}` : `DNS:${hostname}`];
  for (const text of nodeIPs) {
    const ip = parseIpSloppy(text);
    const name = ip ? `IP:${formatIp(ip)}` : undefined;
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names.join(',');
}

export async function ensureSelfSignedCertificate(opts: {
  certDir: string;
  hostname: string;
  nodeIPs: readonly string[];
  /** Epoch seconds for the CN; the caller's clock. */
  nowSeconds: number;
  openssl?: string;
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
    await run(opts.openssl ?? 'openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '365',
      '-keyout', tmpKey, '-out', tmpCert,
      '-subj', `/CN=${opts.hostname}@${opts.nowSeconds}`,
      '-addext', `subjectAltName=${subjectAltNames(opts.hostname, opts.nodeIPs)}`,
      '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment',
      '-addext', 'extendedKeyUsage=serverAuth',
    ], { timeout: 30_000 });
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
