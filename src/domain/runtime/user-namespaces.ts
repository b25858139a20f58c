/**
 * A pod's user namespace as the Go kubelet asks the runtime for it (userns_manager.go
 * GetOrCreateUserNamespaceMappings, HandlerSupportsUserNamespaces):
 * - UserNamespacesSupport off: nothing is sent, and a pod that sets hostUsers at all is refused;
 * - on: hostUsers unset or true is the host's namespace (mode NODE); hostUsers: false is a namespace
 *   of the pod's own (mode POD) with one range of 65,536 IDs mapped from container ID 0, the same
 *   for users and groups, allocated per pod from the kubelet's range.
 * A runtime must say it can: the handler the pod runs on has to be among the runtime handlers its
 * Status reports, with the user_namespaces feature. A runtime that reports no handlers (containerd
 * before 2.0, which would ignore the field and run the pod in the host's namespace) is refused.
 */
import type { Pod } from '../pod/types.js';
import type { CriIdMapping, CriUserNamespace } from './cri-config.js';

export const USER_NAMESPACES_GATE = 'UserNamespacesSupport';
/** IDs in each pod's namespace (Go's userNsLength). */
export const IDS_PER_POD = 65_536;
/** The first host ID handed out: the kubelet's range starts past the host's own first 65,536. */
export const FIRST_POD_HOST_ID = 65_536;

/** What the pod asks for: nothing said, the host's namespace, one of its own, or a refusal. */
export type UserNamespaceRequest =
  | { kind: 'unset' }
  | { kind: 'node' }
  | { kind: 'pod' }
  | { kind: 'refused'; message: string };

export function userNamespaceRequest(pod: Pod, gateOn: boolean): UserNamespaceRequest {
  const hostUsers = pod.spec.hostUsers;
  if (hostUsers === undefined) return gateOn ? { kind: 'node' } : { kind: 'unset' };
  if (!gateOn) return { kind: 'refused', message: `the feature gate "${USER_NAMESPACES_GATE}" is disabled: can't set spec.HostUsers` };
  return hostUsers ? { kind: 'node' } : { kind: 'pod' };
}

/** A runtime handler as CRI Status reports it. */
export interface RuntimeHandlerFeatures { name: string; userNamespaces: boolean }

/**
 * Why the runtime cannot give the pod its own user namespace on `handler`, or undefined when it
 * can. Go's messages, with what a reader needs to act on them: the field that asked for it.
 */
export function userNamespaceUnsupported(handler: string, handlers: readonly RuntimeHandlerFeatures[]): string | undefined {
  const found = handlers.find((h) => h.name === handler);
  if (found?.userNamespaces) return undefined;
  const why = found
    ? `RuntimeClass handler "${handler}" does not support user namespaces`
    : handlers.length === 0
      ? `the handler "${handler}" is not known: the runtime reports no runtime handlers, so no user namespace support`
      : `the handler "${handler}" is not known`;
  return `spec.hostUsers is false but the pod cannot get a user namespace of its own: ${why}`;
}

export const hostUserNamespace: CriUserNamespace = { mode: 'NODE' };

/** The namespace of a pod whose range starts at `hostId`: container IDs 0..length-1, users and groups alike. */
export function podUserNamespace(hostId: number, length = IDS_PER_POD): CriUserNamespace {
  const mapping = { host_id: hostId, container_id: 0, length };
  return { mode: 'POD', uids: [mapping], gids: [{ ...mapping }] };
}

/** The first host ID of a namespace the kubelet made (mode POD, mapped from container ID 0), as a runtime reports it back. */
export function podRangeStart(userns: { mode: string; uids: readonly CriIdMapping[] } | null | undefined): number | undefined {
  const first = userns?.mode === 'POD' ? userns.uids[0] : undefined;
  return first && first.container_id === 0 ? first.host_id : undefined;
}

/**
 * The host ID a new pod's range starts at: the lowest slot of `length` IDs from FIRST_POD_HOST_ID
 * that no pod in `taken` holds, below `limit` (the kubelet's range end), or undefined when full.
 */
export function allocateHostId(taken: ReadonlySet<number>, limit: number, length = IDS_PER_POD): number | undefined {
  for (let id = FIRST_POD_HOST_ID; id + length <= limit; id += length) {
    if (!taken.has(id)) return id;
  }
  return undefined;
}
