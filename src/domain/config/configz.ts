/**
 * What /configz serves: the effective configuration with secrets masked, as the Go kubelet does
 * before registering it (every staticPodURLHeader value becomes `<masked>`, since headers may
 * carry credentials for the manifest URL). Go serves it as `{"kubeletconfig": {...}}`; beside it,
 * `kubeletTs` marks what this kubelet accepts without acting on it: the settings field-support.ts
 * calls ignored that are set, and the gates on in Go's terms whose feature kubelet-ts lacks.
 */
import { reportedFeatureGates } from './feature-gate-support.js';
import type { FeatureGates } from './feature-gates.js';
import type { NotHonoured } from './not-honoured.js';
import type { KubeletConfiguration } from './types.js';

export const MASKED = '<masked>';

export interface ConfigzBody {
  kubeletconfig: KubeletConfiguration;
  kubeletTs: { notActedOn: NotHonoured[]; featureGatesReportedOff: string[] };
}

export function maskForConfigz(cfg: KubeletConfiguration): KubeletConfiguration {
  const masked = structuredClone(cfg);
  for (const name of Object.keys(masked.staticPodURLHeader)) masked.staticPodURLHeader[name] = [MASKED];
  return masked;
}

/** The /configz response body; `notActedOn` as the configuration's loading found it (no secret is among them: every field that can carry one is honoured). */
export function configzBody(cfg: KubeletConfiguration, gates: FeatureGates, notActedOn: readonly NotHonoured[]): ConfigzBody {
  const reported = reportedFeatureGates(gates);
  const off = Object.keys(gates).filter((name) => gates[name] === true && reported[name] === false).sort();
  return { kubeletconfig: maskForConfigz(cfg), kubeletTs: { notActedOn: [...notActedOn], featureGatesReportedOff: off } };
}
