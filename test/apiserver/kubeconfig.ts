/** A kubeconfig for the test API server: one cluster, one user (token or client certificate), one current context. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KUBECONFIG_CONTEXT = 'kubelet-ts-test';

export interface KubeconfigOptions {
  server: string;
  /** PEM of the CA that signed the serving certificate; without it the server is plain HTTP. */
  caPem?: string;
  token?: string;
  clientCertificate?: { certFile: string; keyFile: string };
}

export function kubeconfigText(opts: KubeconfigOptions): string {
  // client-node refuses an http:// server unless the cluster skips TLS verification, so a plain
  // HTTP kubeconfig says so; a TLS one carries the CA instead.
  const cluster = opts.caPem === undefined
    ? { server: opts.server, 'insecure-skip-tls-verify': true }
    : { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caPem).toString('base64') };
  const user = opts.clientCertificate !== undefined
    ? { 'client-certificate': opts.clientCertificate.certFile, 'client-key': opts.clientCertificate.keyFile }
    : { token: opts.token ?? '' };
  // JSON is YAML, and client-node and the Go loaders read either.
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_CONTEXT, cluster }],
    users: [{ name: KUBECONFIG_CONTEXT, user }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: KUBECONFIG_CONTEXT, user: KUBECONFIG_CONTEXT, namespace: 'default' } }],
    'current-context': KUBECONFIG_CONTEXT,
  }, null, 2);
}

/** Writes `<dir>/<fileName>` (0600; `kubeconfig` by default) and returns its path. */
export function writeKubeconfig(dir: string, opts: KubeconfigOptions, fileName = 'kubeconfig'): string {
  const path = join(dir, fileName);
  writeFileSync(path, kubeconfigText(opts), { mode: 0o600 });
  return path;
}
