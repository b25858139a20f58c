/**
 * A CSIDriver object (storage.k8s.io/v1) as the CSI volume plugin reads it, with Go's defaults
 * when the object is absent or a field is unset (pkg/volume/csi: skipAttach, podAttributes,
 * getFSGroupPolicy, supportsVolumeLifecycleMode): attach required, no pod info on mount, fsGroup
 * policy ReadWriteOnceWithFSType, the Persistent lifecycle only.
 */
import type { VolumeLifecycleMode } from './vol-data.js';

export type FsGroupPolicy = 'None' | 'File' | 'ReadWriteOnceWithFSType';

export interface CsiTokenRequest { audience: string; expirationSeconds?: number }

export interface CsiDriverPolicy {
  attachRequired: boolean;
  podInfoOnMount: boolean;
  fsGroupPolicy: FsGroupPolicy;
  requiresRepublish: boolean;
  /** undefined: no CSIDriver object (only Persistent volumes are allowed then). */
  volumeLifecycleModes: VolumeLifecycleMode[] | undefined;
  tokenRequests: CsiTokenRequest[];
}

/** The object's `spec` as the API carries it (only the fields read here). */
export interface CsiDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  fsGroupPolicy?: string;
  requiresRepublish?: boolean;
  volumeLifecycleModes?: string[];
  tokenRequests?: { audience?: string; expirationSeconds?: number }[];
}

const fsGroupPolicies: readonly string[] = ['None', 'File', 'ReadWriteOnceWithFSType'];

/** The policy of a CSIDriver's spec, or Go's defaults for an absent object (undefined). */
export function csiDriverPolicy(spec: CsiDriverSpec | undefined): CsiDriverPolicy {
  const policy = spec?.fsGroupPolicy;
  return {
    attachRequired: spec?.attachRequired !== false,
    podInfoOnMount: spec?.podInfoOnMount === true,
    // An unknown value is what an API server newer than us may send: Go treats it as the default too.
    fsGroupPolicy: policy !== undefined && fsGroupPolicies.includes(policy) ? policy as FsGroupPolicy : 'ReadWriteOnceWithFSType',
    requiresRepublish: spec?.requiresRepublish === true,
    volumeLifecycleModes: spec === undefined ? undefined
      : (spec.volumeLifecycleModes ?? ['Persistent']).filter((m): m is VolumeLifecycleMode => m === 'Persistent' || m === 'Ephemeral'),
    tokenRequests: (spec?.tokenRequests ?? []).map((t) => ({ audience: t.audience ?? '', ...(t.expirationSeconds !== undefined ? { expirationSeconds: t.expirationSeconds } : {}) })),
  };
}

/** Why the driver cannot serve a volume of `mode` (Go's supportsVolumeLifecycleMode message), or null when it can. */
export function lifecycleModeProblem(driver: string, policy: CsiDriverPolicy, mode: VolumeLifecycleMode): string | null {
  const modes = policy.volumeLifecycleModes;
  if (modes === undefined) return mode === 'Persistent' ? null : `volume mode "${mode}" not supported by driver ${driver} (no CSIDriver object)`;
  if (modes.includes(mode)) return null;
  return `volume mode "${mode}" not supported by driver ${driver} (only supports [${modes.map((m) => `"${m}"`).join(' ')}])`;
}

/** Go's words for a driver the node does not know (newCsiDriverClient). */
export const unregisteredDriverMessage = (driver: string) => `driver name ${driver} not found in the list of registered CSI drivers`;
