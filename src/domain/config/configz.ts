/**
 * What /configz serves: the effective configuration with secrets masked, as the Go kubelet does
 * before registering it (every staticPodURLHeader value becomes `<masked>`, since headers may
 * carry credentials for the manifest URL). Go serves it as `{"kubeletconfig": {...}}`.
 */
import type { KubeletConfiguration } from './types.js';

export const MASKED = '<masked>';

export function maskForConfigz(cfg: KubeletConfiguration): KubeletConfiguration {
  const masked = structuredClone(cfg);
  for (const name of Object.keys(masked.staticPodURLHeader)) masked.staticPodURLHeader[name] = [MASKED];
  return masked;
}

/** The /configz response body. */
export function configzBody(cfg: KubeletConfiguration): { kubeletconfig: KubeletConfiguration } {
  return { kubeletconfig: maskForConfigz(cfg) };
}
