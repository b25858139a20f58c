/**
 * The API server's checks of a container's restartPolicy and restartPolicyRules
 * (ContainerRestartRules), for pods that reach the kubelet from a file or URL: the restart decisions
 * (pod/restart-rules.ts) read these fields, and a value the API server would refuse must not reach
 * them. RestartAllContainers is its own gate, off in v1.35, so only the Restart action is accepted.
 * Pure.
 */
import type { Container } from '../pod/types.js';
import { forbidden, notSupported, required } from './field-errors.js';

const POLICIES = ['Always', 'Never', 'OnFailure'];
const ACTIONS = ['Restart'];
const OPERATORS = ['In', 'NotIn'];
const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;

const tooLong = (path: string, max: number): string => `${path}: Too long: may not be more than ${max} bytes`;

function policyAndRulesErrors(path: string, container: Container): string[] {
  const errors: string[] = [];
  const rules = container.restartPolicyRules ?? [];
  if (container.restartPolicy !== undefined && !POLICIES.includes(container.restartPolicy)) {
    errors.push(notSupported(`${path}.restartPolicy`, container.restartPolicy, POLICIES));
  }
  if (rules.length > MAX_RULES) errors.push(tooLong(`${path}.restartPolicyRules`, MAX_RULES));
  rules.forEach((rule, i) => {
    const at = `${path}.restartPolicyRules[${i}]`;
    if (!ACTIONS.includes(rule.action)) errors.push(notSupported(`${at}.action`, rule.action, ACTIONS));
    if (!rule.exitCodes) {
      errors.push(required(`${at}.exitCodes`, 'must be specified'));
      return;
    }
    if (!OPERATORS.includes(rule.exitCodes.operator)) errors.push(notSupported(`${at}.exitCodes.operator`, rule.exitCodes.operator, OPERATORS));
    if ((rule.exitCodes.values ?? []).length > MAX_EXIT_CODES) errors.push(tooLong(`${at}.exitCodes.values`, MAX_EXIT_CODES));
  });
  return errors;
}

/**
 * Errors of one container's restart fields, by its path (`spec.containers[0]`). Rules need a policy
 * of the container's own; a sidecar (an init container with Always) may not have rules.
 */
export function containerRestartRuleErrors(path: string, container: Container, init: boolean): string[] {
  if (container.restartPolicy === undefined) {
    return (container.restartPolicyRules ?? []).length > 0 ? [required(`${path}.restartPolicy`, 'must specify restartPolicy when restart rules are used')] : [];
  }
  if (init && container.restartPolicy === 'Always') {
    return (container.restartPolicyRules ?? []).length > 0
      ? [forbidden(`${path}.restartPolicyRules`, 'restartPolicyRules are not allowed for init containers with restart policy Always')]
      : [];
  }
  return policyAndRulesErrors(path, container);
}
