/**
 * The user namespace sent for a pod's sandbox and containers (userns_manager.go), over the pure
 * decisions of domain/runtime/user-namespaces.ts: the runtime's handlers are asked through CRI
 * Status only when a pod wants a namespace of its own, and its range is kept per pod uid until the
 * pod is removed.
 * Differs from Go: Go writes each pod's range under the pod's directory and reads them all back at
 * start; here the ranges in use are read back from the runtime (the user namespace each sandbox
 * reports) before the first allocation, so a restarted kubelet neither hands out a range a running
 * pod holds nor gives a pod a different one.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import type { CriUserNamespace } from '../../domain/runtime/cri-config.js';
import {
  allocateHostId, hostUserNamespace, podRangeStart, podUserNamespace, userNamespaceRequest, userNamespaceUnsupported, type RuntimeHandlerFeatures,
} from '../../domain/runtime/user-namespaces.js';
import type { CriRuntimeService } from '../../ports/cri.js';

/** The end of the kubelet's ID range when no subordinate IDs are configured for it (Go's default). */
const KUBELET_RANGE_END = 2 ** 32;

export interface UserNamespaces {
  /** The namespace for the pod on `handler`; undefined when nothing is to be sent; throws a refusal. */
  forPod(pod: Pod, handler: string): Promise<CriUserNamespace | undefined>;
  /** Frees the pod's range. */
  release(podUid: string): void;
}

export interface RangeInUse { podUid: string; hostId: number }

export function createUserNamespaces(opts: {
  gateOn: boolean;
  runtimeHandlers: () => Promise<RuntimeHandlerFeatures[]>;
  /** The ranges the runtime's sandboxes hold, read once before the first allocation. */
  rangesInUse: () => Promise<RangeInUse[]>;
}): UserNamespaces {
  const ranges = new Map<string, number>();
  let recovered: Promise<void> | undefined;
  const recover = () => (recovered ??= opts.rangesInUse().then((inUse) => {
    for (const r of inUse) if (!ranges.has(r.podUid)) ranges.set(r.podUid, r.hostId);
  }, (err: unknown) => {
    recovered = undefined; // asked again by the next pod
    throw err;
  }));
  return {
    async forPod(pod, handler) {
      const asked = userNamespaceRequest(pod, opts.gateOn);
      switch (asked.kind) {
        case 'unset': return undefined;
        case 'node': return hostUserNamespace;
        case 'refused': throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', asked.message);
        case 'pod': break;
      }
      const unsupported = userNamespaceUnsupported(handler, await opts.runtimeHandlers());
      if (unsupported !== undefined) throw new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', unsupported);
      await recover();
      const uid = pod.metadata.uid;
      let hostId = ranges.get(uid);
      if (hostId === undefined) {
        hostId = allocateHostId(new Set(ranges.values()), KUBELET_RANGE_END);
        if (hostId === undefined) throw new KubeletError('KLT_ERR_INTERNAL', 'could not allocate a user namespace range: every range is in use');
        ranges.set(uid, hostId);
      }
      return podUserNamespace(hostId);
    },
    release: (podUid) => void ranges.delete(podUid),
  };
}

/** The runtime's handlers and their user namespace support, from a CRI Status answer. */
export function handlersFromStatus(answer: { runtime_handlers?: { name: string; features: { user_namespaces: boolean } | null }[] }): RuntimeHandlerFeatures[] {
  return (answer.runtime_handlers ?? []).map((h) => ({ name: h.name, userNamespaces: h.features?.user_namespaces ?? false }));
}

/** The pod user namespaces the runtime's sandboxes report; a sandbox gone meanwhile is skipped. */
export async function rangesInRuntime(runtime: Pick<CriRuntimeService, 'listPodSandbox' | 'podSandboxStatus'>): Promise<RangeInUse[]> {
  const found: RangeInUse[] = [];
  for (const sandbox of await runtime.listPodSandbox()) {
    const status = await runtime.podSandboxStatus(sandbox.id).then((r) => r.status, () => null);
    const hostId = podRangeStart(status?.linux?.namespaces?.options?.userns_options);
    if (hostId !== undefined) found.push({ podUid: sandbox.metadata.uid, hostId });
  }
  return found;
}
