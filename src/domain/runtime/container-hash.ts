/**
 * The container spec hash the kubelet stores on each container (annotation
 * io.kubernetes.container.hash) to notice a changed spec and restart that container.
 *
 * Differs from Go on purpose: Go's HashContainer is fnv32a over Go's JSON encoding of the
 * container (and since 1.31 only over a few picked fields), which we cannot reproduce byte for byte.
 * Ours is the first 32 bits of sha256 over canonical JSON (keys sorted, undefined dropped) of the
 * whole container spec. Consequence: containers created by a Go kubelet look "changed" to us and are
 * restarted once, and any change to a container's spec restarts it (Go ≥ 1.31 restarts only on
 * name/image changes, the only mutable fields the API server allows).
 *
 * Resources and resizePolicy are resized in place (resize-actions.ts), never through the hash, so
 * a second hash leaves them out. Containers keep both: the full one under the annotation they always
 * had, the other under its own. A container that carries the second is compared on it; one started
 * before the second existed has only the full hash and is compared on that, so an upgraded kubelet
 * restarts none of the containers it finds running (a resize of such a container restarts it once,
 * and it is resized in place from then on). Changing what the full hash covers instead would have
 * made every running container look changed on the first sync after the upgrade.
 */
import { createHash } from 'node:crypto';
import type { Container } from '../pod/types.js';
import type { RuntimeContainerStatus } from './pod-status.js';
import { byFirstCodeUnits } from '../text/code-unit-order.js';

/** JSON with object keys sorted at every level, so equal specs hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(byFirstCodeUnits);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** uint32 from the first 8 hex digits of sha256(canonical JSON of the container). */
export function hashContainer(container: Container): number {
  const digest = createHash('sha256').update(canonicalJson(container)).digest('hex');
  return Number.parseInt(digest.slice(0, 8), 16);
}

/** The hash of everything but what a resize changes in place (resources, resizePolicy). */
export function hashContainerWithoutResources(container: Container): number {
  const { resources: _resources, resizePolicy: _policy, ...rest } = container;
  return hashContainer(rest as Container);
}

/** Go's containerChanged: on the resource-free hash when the container has one, the full hash otherwise. */
export function containerSpecChanged(container: Container, status: Pick<RuntimeContainerStatus, 'hash' | 'hashWithoutResources'>): boolean {
  if (status.hashWithoutResources !== undefined) return hashContainerWithoutResources(container) !== status.hashWithoutResources;
  return hashContainer(container) !== status.hash;
}
