/** A kubeconfig for the test API server: one cluster, one token user, one current context. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KUBECONFIG_CONTEXT = 'kubelet-ts-test';

export function kubeconfigText(server: string, token: string): string {
  // JSON is YAML, and client-node and the Go loaders read either. client-node refuses an http://
  // server unless the cluster skips TLS verification, so the kubeconfig says so.
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_CONTEXT, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: KUBECONFIG_CONTEXT, user: { token } }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: KUBECONFIG_CONTEXT, user: KUBECONFIG_CONTEXT, namespace: 'default' } }],
    'current-context': KUBECONFIG_CONTEXT,
  }, null, 2);
}

export function writeKubeconfig(dir: string, server: string, token: string): string {
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, kubeconfigText(server, token), { mode: 0o600 });
  return path;
}
