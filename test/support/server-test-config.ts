import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `dir/kubelet.yaml` for tests of the kubelet's own servers: static pods from `dir/manifests`
 * on the embedded runtime, anonymous requests allowed (AlwaysAllow), the kubelet server and the
 * read-only port on loopback at the given ports, healthz off. Returns the file's path.
 */
export function writeServerTestConfig(dir: string, ports: { port: number; readOnlyPort: number }): string {
  const path = join(dir, 'kubelet.yaml');
  writeFileSync(path, [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${join(dir, 'manifests')}`, `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded',
    'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
    'address: 127.0.0.1', `port: ${ports.port}`, `readOnlyPort: ${ports.readOnlyPort}`, 'healthzPort: 0', '',
  ].join('\n'));
  return path;
}
