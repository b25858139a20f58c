/**
 * TLS bootstrap of the kubelet's client certificate (Go: pkg/kubelet/certificate/bootstrap,
 * LoadClientCert, called at the start of run() when --bootstrap-kubeconfig is set):
 *
 * 1. --kubeconfig still valid (it loads, carries a client certificate, none of its certificates has
 *    expired) → nothing to do. A kubeconfig with a token and no certificate is not valid here, as in Go.
 * 2. Else, with the bootstrap kubeconfig's credentials (a bootstrap token, usually): a key (the
 *    current pair's when it parses, else `kubelet-client.key.tmp`, kept until the CSR succeeds so a
 *    restart asks with the same key, and the same CSR name), a CSR for CN `system:node:<node>`,
 *    O `system:nodes`, signer kubernetes.io/kube-apiserver-client-kubelet, usages digital signature
 *    and client auth (and key encipherment for an RSA key), named `node-csr-<digest>` as Go names it;
 *    then wait up to an hour for it to be issued.
 * 3. The pair goes to `kubelet-client-<time>.pem` with the `kubelet-client-current.pem` link, and
 *    --kubeconfig is written to point at the link, with the bootstrap kubeconfig's server and CA.
 */
import { X509Certificate, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import { readKubeconfig, type Kubeconfig } from '../apiserver/kubeconfig-file.js';
import { RestClient } from '../apiserver/rest-client.js';
import { makeDirectories } from '../fs/make-directories.js';
import { askForNodeCertificate } from './node-certificate.js';
import { PairStore, splitPem } from './pair-store.js';

const TMP_PRIVATE_KEY_FILE = 'kubelet-client.key.tmp';
/** Go's requestNodeCertificate waits this long for the certificate. */
export const BOOTSTRAP_WAIT_MS = 3600_000;
/** Go's waitForServer: up to a minute for the API server's /healthz before asking anyway. */
const WAIT_FOR_SERVER_MS = 60_000;

export interface ClientBootstrapOptions {
  kubeconfigPath: string;
  bootstrapKubeconfigPath: string;
  certDir: string;
  nodeName: string;
  clock: Clock;
  signal: AbortSignal;
  userAgent: string;
  waiting: (reason: string) => void;
  log: (msg: string, fields?: Record<string, unknown>) => void;
}

export type ClientBootstrapOutcome =
  | { bootstrap: 'kubeconfig valid' }
  | { bootstrap: 'issued'; csr: string; certificateFile: string; notAfter: string };

/** Why --kubeconfig cannot be used as it is (isClientConfigStillValid), or null when it can. */
export function kubeconfigProblem(path: string, now: Date): string | null {
  let config: Kubeconfig;
  try {
    config = readKubeconfig(path);
  } catch (err) {
    return (err as Error).message;
  }
  if (!config.user.cert) return `${path} has no client certificate`;
  const { certificates } = splitPem(config.user.cert.toString('utf8'));
  if (certificates.length === 0) return `${path}: its client certificate holds no certificate`;
  for (const pem of certificates) {
    let notAfter: Date;
    try {
      notAfter = new Date(new X509Certificate(pem).validTo);
    } catch (err) {
      return `${path}: its client certificate does not parse: ${(err as Error).message}`;
    }
    if (now > notAfter) return `part of the client certificate in ${path} is expired: ${notAfter.toISOString()}`;
  }
  return null;
}

/** The key to ask with: the current pair's, or the kept temporary one, or a new one (kept until the CSR succeeds). */
async function requestKey(store: PairStore, certDir: string): Promise<string> {
  const current = store.current();
  if (current.pair) return current.pair.keyPem;
  const tmp = join(certDir, TMP_PRIVATE_KEY_FILE);
  try {
    const pem = readFileSync(tmp, 'utf8');
    createPublicKey(pem);
    return pem;
  } catch {
    const { generateKeyPair } = await import('../pki/x509.js');
    const { privateKeyPem } = await generateKeyPair('ecdsa-p256');
    await makeDirectories(certDir, 0o755);
    await writeFile(tmp, privateKeyPem, { mode: 0o600 });
    return privateKeyPem;
  }
}

/** A kubeconfig naming the pair's file for both certificate and key, as writeKubeconfigFromBootstrapping writes it. */
export function bootstrappedKubeconfig(cluster: Kubeconfig['cluster'], pairPath: string): string {
  const c = {
    server: cluster.server,
    ...(cluster.ca ? { 'certificate-authority-data': cluster.ca.toString('base64') } : {}),
    ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
  };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: c }],
    users: [{ name: 'default-auth', user: { 'client-certificate': pairPath, 'client-key': pairPath } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
    'current-context': 'default-context',
  }, null, 2);
}

async function waitForServer(rest: RestClient, o: ClientBootstrapOptions): Promise<void> {
  const deadline = o.clock.now() + WAIT_FOR_SERVER_MS;
  for (;;) {
    // /healthz answers text, not JSON: only its status counts.
    const ok = await rest.stream('/healthz', { signal: o.signal }).then((res) => (res.resume(), true), () => false);
    if (ok || o.signal.aborted) return;
    if (o.clock.now() >= deadline) {
      o.log('The API server did not answer /healthz within a minute; asking for the certificate anyway', { server: rest.server });
      return;
    }
    o.waiting(`waiting for the API server at ${rest.server} (bootstrap)`);
    await new Promise<void>((r) => o.clock.setTimeout(() => r(), 1000));
  }
}

export async function loadClientCert(o: ClientBootstrapOptions): Promise<ClientBootstrapOutcome> {
  const problem = kubeconfigProblem(o.kubeconfigPath, new Date(o.clock.now()));
  if (problem === null) return { bootstrap: 'kubeconfig valid' };
  o.log('Using the bootstrap kubeconfig to request a client certificate', { reason: problem, bootstrapKubeconfig: o.bootstrapKubeconfigPath });
  const bootstrap = readKubeconfig(o.bootstrapKubeconfigPath);
  const rest = new RestClient(bootstrap, o.clock, o.userAgent);
  try {
    const store = new PairStore(o.certDir, 'kubelet-client');
    const keyPem = await requestKey(store, o.certDir);
    await waitForServer(rest, o);
    const { csr, certificatePem } = await askForNodeCertificate(rest, keyPem, o.nodeName, {
      named: true,
      clock: o.clock,
      signal: o.signal,
      timeoutMs: BOOTSTRAP_WAIT_MS,
      onCreated: (name) => o.log('Waiting for the client certificate to be issued', { csr: name }),
      onState: (n, state) => o.waiting(state === 'pending' ? `certificate signing request ${n} is pending approval` : `certificate signing request ${n} is approved, waiting to be issued`),
    });
    const file = await store.update(certificatePem, keyPem, new Date(o.clock.now()));
    await rm(join(o.certDir, TMP_PRIVATE_KEY_FILE), { force: true });
    await makeDirectories(dirname(o.kubeconfigPath), 0o755);
    await writeFile(o.kubeconfigPath, bootstrappedKubeconfig(bootstrap.cluster, store.currentPath), { mode: 0o600 });
    const issued = store.current();
    if (!issued.pair) throw new KubeletError('KLT_ERR_BOOTSTRAP', `the issued certificate cannot be read back: ${issued.why}`);
    return { bootstrap: 'issued', csr, certificateFile: file, notAfter: issued.pair.notAfter.toISOString() };
  } finally {
    rest.close();
  }
}
