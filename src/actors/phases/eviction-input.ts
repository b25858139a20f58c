/**
 * The eviction manager's input from the configuration (Go: NewMainKubelet's
 * eviction.ParseThresholdConfig and eviction.Config). A threshold Go cannot parse stops start-up,
 * as in Go. With no threshold and localStorageCapacityIsolation off there is no eviction manager:
 * Go's synchronize does nothing then.
 */
import { parseGoDuration } from '../../domain/config/duration.js';
import type { KubeletConfiguration } from '../../domain/config/types.js';
import { KubeletError } from '../../domain/errors.js';
import { parseThresholdConfig } from '../../domain/eviction/thresholds.js';
import type { EvictionManagerInput } from '../../machines/eviction-manager.machine.js';

export function evictionManagerInput(c: KubeletConfiguration, nodeName: string): EvictionManagerInput | undefined {
  const { thresholds, errors } = parseThresholdConfig(c);
  if (errors.length > 0) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `failed to create eviction manager: ${errors.join('; ')}`);
  if (thresholds.length === 0 && !c.localStorageCapacityIsolation) return undefined;
  return {
    nodeName,
    thresholds,
    pressureTransitionPeriodMs: parseGoDuration(c.evictionPressureTransitionPeriod),
    maxPodGracePeriodSeconds: c.evictionMaxPodGracePeriod,
    localStorageCapacityIsolation: c.localStorageCapacityIsolation,
  };
}
