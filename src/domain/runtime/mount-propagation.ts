/**
 * A volume mount's propagation as the CRI names it (Go: kubelet_pods.go translateMountPropagation,
 * Linux branch): unset and None are private; an unknown mode is a container config error.
 */
import { KubeletError } from '../errors.js';
import type { MountPropagationMode } from '../pod/types.js';
import type { CriMountPropagation } from './cri-config.js';

export function criMountPropagation(mode: MountPropagationMode | undefined): CriMountPropagation {
  switch (mode) {
    case undefined:
    case 'None':
      return 'PROPAGATION_PRIVATE';
    case 'HostToContainer':
      return 'PROPAGATION_HOST_TO_CONTAINER';
    case 'Bidirectional':
      return 'PROPAGATION_BIDIRECTIONAL';
    default:
      // A manifest may carry any text; the type only says what it should be.
      throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', `invalid MountPropagation mode: ${JSON.stringify(mode)}`);
  }
}
