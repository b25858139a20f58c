/**
 * The legacy container log link (Go's kuberuntime legacyLogSymlink): `<dir>/<pod>_<namespace>_<container>-<containerID>.log`,
 * pointing at the container's CRI log. Log shippers (Fluent Bit, Fluentd, Vector, the OpenTelemetry
 * collector) tail `/var/log/containers/*.log` by default and read pod, namespace and container from
 * the name. A name longer than ext4 allows (255 bytes) is cut before its `.log`, as Go cuts it.
 */

export const LEGACY_CONTAINER_LOGS_DIR = '/var/log/containers';
const SUFFIX = '.log';
const MAX_FILE_NAME = 255;

export function legacyLogSymlink(dir: string, containerId: string, containerName: string, podName: string, podNamespace: string): string {
  const name = `${podName}_${podNamespace}_${containerName}-${containerId}`;
  // Go cuts by bytes; names here are DNS labels and hex ids, so bytes are characters.
  return `${dir.replace(/\/+$/, '')}/${name.slice(0, MAX_FILE_NAME - SUFFIX.length)}${SUFFIX}`;
}
