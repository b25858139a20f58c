/**
 * The projected volume the ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount)
 * adds to every pod that does not opt out, so nearly every pod of a real cluster has it: a bound
 * token (3607 s), the namespace's `kube-root-ca.crt` CA and the namespace from the downward API, at
 * mode 0644, mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount. The test API server
 * admits pods as they are sent; tests, benches and recordings that want a real cluster's pod add it.
 */
const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** utilrand.String(5) over its alphabet, as the plugin names the volume `kube-api-access-<x>`. */
export function kubeApiAccessName(draw: () => number = Math.random): string {
  return `kube-api-access-${Array.from({ length: 5 }, () => SUFFIX_CHARS[Math.floor(draw() * SUFFIX_CHARS.length)]).join('')}`;
}

export function kubeApiAccessVolume(name: string) {
  return {
    volume: {
      name,
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    },
    mount: { name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
  };
}
