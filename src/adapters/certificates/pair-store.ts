/**
 * A certificate and key pair kept in --cert-dir the way Go's certificate file store keeps it
 * (k8s.io/client-go/util/certificate, NewFileStore): each issued pair is written to
 * `<prefix>-<YYYY-MM-DD-HH-MM-SS>.pem` (certificate, then key; 0600), and `<prefix>-current.pem`
 * is a symlink to the newest, swapped by renaming a fresh link over it so a reader never finds it
 * missing. The kubeconfig written after a bootstrap names the link, so a rotation needs no rewrite.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { KubeletError } from '../../domain/errors.js';
import { makeDirectories } from '../fs/make-directories.js';

export interface CurrentPair {
  path: string;
  certificatePem: string;
  keyPem: string;
  /** The leaf certificate's validity. */
  notBefore: Date;
  notAfter: Date;
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[^-]+-----END \1-----\n?/g;

/** The certificate blocks and the (first) private key block of a PEM file. */
export function splitPem(text: string): { certificates: string[]; key: string | undefined } {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  return {
    certificates: blocks.filter((b) => b[1] === 'CERTIFICATE').map((b) => b[0]),
    key: blocks.find((b) => b[1]!.endsWith('PRIVATE KEY'))?.[0],
  };
}

/** Go's timestamp in the file name: 2006-01-02-15-04-05, UTC here. */
function stamp(now: Date): string {
  return now.toISOString().slice(0, 19).replace(/[T:]/g, '-');
}

export class PairStore {
  constructor(readonly dir: string, readonly prefix: string) {}

  get currentPath(): string {
    return join(this.dir, `${this.prefix}-current.pem`);
  }

  /** The current pair, or null when there is none or it does not parse (with why, for the log). */
  current(): { pair: CurrentPair } | { pair: null; why: string } {
    let text: string;
    try {
      text = readFileSync(this.currentPath, 'utf8');
    } catch (err) {
      return { pair: null, why: `cannot read ${this.currentPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
    }
    const { certificates, key } = splitPem(text);
    if (certificates.length === 0 || key === undefined) return { pair: null, why: `${this.currentPath} holds no certificate and key` };
    try {
      const cert = new X509Certificate(certificates[0]!);
      if (!cert.checkPrivateKey(createPrivateKey(key))) return { pair: null, why: `${this.currentPath}: the key does not match the certificate` };
      return { pair: { path: this.currentPath, certificatePem: certificates.join(''), keyPem: key, notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) } };
    } catch (err) {
      return { pair: null, why: `${this.currentPath}: ${(err as Error).message}` };
    }
  }

  /**
   * Writes a new pair and points the current link at it; returns the new file's path. A pair TLS
   * cannot load is refused (KLT_ERR_TLS_CONFIG) before anything is written: it never replaces the
   * one in use.
   */
  async update(certificatePem: string, keyPem: string, now: Date): Promise<string> {
    try {
      createSecureContext({ cert: certificatePem, key: keyPem });
    } catch (err) {
      throw new KubeletError('KLT_ERR_TLS_CONFIG', `a new ${this.prefix} pair cannot be used for TLS: ${(err as Error).message}`, { cause: err });
    }
    await makeDirectories(this.dir, 0o755);
    const file = join(this.dir, `${this.prefix}-${stamp(now)}.pem`);
    await writeFile(file, certificatePem.endsWith('\n') ? certificatePem + keyPem : `${certificatePem}\n${keyPem}`, { mode: 0o600 });
    const updated = join(this.dir, `${this.prefix}-updated.pem`);
    await rm(updated, { force: true });
    // A relative target, as Go writes it: the directory can move.
    await symlink(basename(file), updated);
    await rename(updated, this.currentPath);
    return file;
  }

  /** Where the current link points (for a test or a log line); null without one. */
  async target(): Promise<string | null> {
    return readlink(this.currentPath).catch(() => null);
  }
}
