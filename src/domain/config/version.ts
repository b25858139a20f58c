/**
 * The Kubernetes version whose kubelet we follow (flags, defaults, feature gates, validation), and
 * how `--version` prints it: Go prints `Kubernetes v1.35.0`; we append `-kubelet-ts` so that a
 * script can tell the two apart while a version parser still reads v1.35.0.
 */
export const KUBERNETES_VERSION = 'v1.35.0';
export const KUBELET_TS_VERSION = `${KUBERNETES_VERSION}-kubelet-ts`;

export function versionLine(): string {
  return `Kubernetes ${KUBELET_TS_VERSION}`;
}

/** What `--version=raw` prints: Go prints its version.Info struct; we print the same fields as JSON. */
export function rawVersionInfo(): string {
  const [major = '', minor = ''] = KUBERNETES_VERSION.slice(1).split('.');
  return JSON.stringify({ major, minor, gitVersion: KUBELET_TS_VERSION, platform: `${platform()}` }, null, 2);
}

function platform(): string {
  return 'linux/node';
}
