/**
 * topologyManagerPolicyOptions, as Go's topologymanager/policy_options.go checks and reads them. The
 * stage of each option is that of Kubernetes v1.26 (the one Go option then, prefer-closest-numa-nodes,
 * was alpha): an option needs the feature gate of its stage.
 */
import { isEnabled, type FeatureGates } from '../../config/feature-gates.js';

export const PREFER_CLOSEST_NUMA_NODES = 'prefer-closest-numa-nodes';

const OPTION_STAGES: Record<string, 'alpha' | 'beta' | 'stable'> = {
  [PREFER_CLOSEST_NUMA_NODES]: 'alpha',
};

export interface TopologyPolicyOptions {
  preferClosestNuma: boolean;
}

/** Go's strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** Go's CheckPolicyOptionAvailable and NewPolicyOptions' value check: one message per bad option. */
export function policyOptionErrors(options: Record<string, string>, gates: FeatureGates): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const stage = OPTION_STAGES[name];
    if (stage === undefined) {
      errors.push(`unknown Topology Manager Policy option: ${JSON.stringify(name)}`);
    } else if (stage === 'alpha' && !isEnabled(gates, 'TopologyManagerPolicyAlphaOptions')) {
      errors.push(`Topology Manager Policy Alpha-level Options not enabled, but option ${JSON.stringify(name)} provided`);
    } else if (stage === 'beta' && !isEnabled(gates, 'TopologyManagerPolicyBetaOptions')) {
      errors.push(`Topology Manager Policy Beta-level Options not enabled, but option ${JSON.stringify(name)} provided`);
    } else if (parseGoBool(value) === undefined) {
      errors.push(`bad value for option ${JSON.stringify(name)}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
  }
  return errors;
}

/** The options' meaning; assumes policyOptionErrors found nothing. */
export function parsePolicyOptions(options: Record<string, string>): TopologyPolicyOptions {
  return { preferClosestNuma: parseGoBool(options[PREFER_CLOSEST_NUMA_NODES] ?? 'false') ?? false };
}
