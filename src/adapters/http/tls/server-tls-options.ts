/**
 * The kubelet server's TLS options for Node's https server: the serving pair (given files, or the
 * self-signed pair in certDir), tlsMinVersion and tlsCipherSuites mapped from Go's names, and client
 * certificates requested but not required (`requestCert`, `rejectUnauthorized: false`): a client
 * without a certificate may still authenticate another way, so the decision is the authenticator's.
 * OpenSSL gets an empty trust store (`ca: []`, not clientCAFile, not Node's root store): the client
 * certificate is verified against clientCAFile in client-certificates.ts, which says why.
 */
import { readFile } from 'node:fs/promises';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { KubeletError } from '../../../domain/errors.js';
import { tlsSettings } from '../../../domain/kubelet-server/tls-settings.js';
import { ensureSelfSignedCertificate } from './self-signed.js';

export interface KubeletTlsConfig {
  certFile?: string;
  keyFile?: string;
  /** --cert-dir, where the self-signed pair lives (default /var/lib/kubelet/pki). */
  certDir: string;
  hostname: string;
  nodeIPs: readonly string[];
  /** Go name, e.g. VersionTLS12; empty → TLS 1.2. */
  minVersion?: string;
  /** Go names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; empty → Node's defaults. */
  cipherSuites?: readonly string[];
}

/** A PEM file's bytes, or KLT_ERR_TLS_CONFIG naming the setting and the path. */
export async function readPem(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new KubeletError('KLT_ERR_TLS_CONFIG', `cannot read ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
}

export async function buildServerTlsOptions(
  tls: KubeletTlsConfig,
  clientCAFile: string | undefined,
  nowSeconds: number,
): Promise<TlsOptions & SecureContextOptions> {
  const settings = tlsSettings(tls.minVersion, tls.cipherSuites);
  if (!settings.ok) throw new KubeletError('KLT_ERR_TLS_CONFIG', settings.reason);
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
    throw new KubeletError('KLT_ERR_TLS_CONFIG', 'tlsCertFile and tlsPrivateKeyFile must be set together');
  }
  const pair = tls.certFile && tls.keyFile
    ? { certFile: tls.certFile, keyFile: tls.keyFile }
    : await ensureSelfSignedCertificate({ certDir: tls.certDir, hostname: tls.hostname, nodeIPs: tls.nodeIPs, nowSeconds });
  const options: TlsOptions & SecureContextOptions = {
    cert: await readPem(pair.certFile, 'tlsCertFile'),
    key: await readPem(pair.keyFile, 'tlsPrivateKeyFile'),
    minVersion: settings.minVersion,
    requestCert: clientCAFile !== undefined && clientCAFile !== '',
    rejectUnauthorized: false,
  };
  if (settings.ciphers) options.ciphers = settings.ciphers;
  if (options.requestCert) options.ca = [];
  return options;
}
