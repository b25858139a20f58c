/**
 * CRI UpdateRuntimeConfig with a pod CIDR (Go's kubeGenericRuntimeManager.UpdatePodCIDR). A client
 * without the call is a runtime that cannot be told: that is an error for the caller to log.
 */
import { KubeletError } from '../../domain/errors.js';
import type { CriRuntimeService } from '../../ports/cri.js';

export async function updateRuntimeConfig(runtime: CriRuntimeService, podCIDR: string): Promise<void> {
  if (!runtime.updateRuntimeConfig) throw new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', 'the CRI client has no UpdateRuntimeConfig');
  await runtime.updateRuntimeConfig(podCIDR);
}
