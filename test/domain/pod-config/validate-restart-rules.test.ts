import { describe, expect, it } from 'vitest';
import { validatePod } from '../../../src/domain/pod-config/validate-pod.js';
import { containerRestartRuleErrors } from '../../../src/domain/pod-config/validate-restart-rules.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const c = (extra: Partial<Container>): Container => ({ name: 'c', image: 'i', ...extra });
const restartOn = (operator: string, values: number[], action = 'Restart') => ({ action, exitCodes: { operator, values } });

describe('containerRestartRuleErrors', () => {
  it.each<[string, Container, boolean, string[]]>([
    ['no restart fields', c({}), false, []],
    ['a policy with a rule', c({ restartPolicy: 'Never', restartPolicyRules: [restartOn('In', [42])] }), false, []],
    ['an init container with OnFailure and a NotIn rule', c({ restartPolicy: 'OnFailure', restartPolicyRules: [restartOn('NotIn', [0])] }), true, []],
    ['a sidecar without rules', c({ restartPolicy: 'Always' }), true, []],
    ['rules without a policy', c({ restartPolicyRules: [restartOn('In', [1])] }), false,
      ['p.restartPolicy: Required value: must specify restartPolicy when restart rules are used']],
    ['a sidecar with rules', c({ restartPolicy: 'Always', restartPolicyRules: [restartOn('In', [1])] }), true,
      ['p.restartPolicyRules: Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always']],
    ['an unknown policy', c({ restartPolicy: 'Sometimes' as Container['restartPolicy'] }), false,
      ['p.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"']],
    ['an unknown action and operator', c({ restartPolicy: 'Never', restartPolicyRules: [restartOn('Above', [1], 'RestartAllContainers')] }), false, [
      'p.restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported values: "Restart"',
      'p.restartPolicyRules[0].exitCodes.operator: Unsupported value: "Above": supported values: "In", "NotIn"',
    ]],
    ['a rule without exit codes', c({ restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart' }] }), false,
      ['p.restartPolicyRules[0].exitCodes: Required value: must be specified']],
    ['more than 20 rules', c({ restartPolicy: 'Never', restartPolicyRules: Array.from({ length: 21 }, () => restartOn('In', [1])) }), false,
      ['p.restartPolicyRules: Too long: may not be more than 20 bytes']],
  ])('%s', (_, container, init, expected) => {
    expect(containerRestartRuleErrors('p', container, init)).toEqual(expected);
  });

  it('validatePod reports them by the container\'s path', () => {
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'default', uid: 'u' },
      spec: { initContainers: [c({ name: 'init', restartPolicyRules: [restartOn('In', [1])] })], containers: [c({ name: 'main' })] },
    };
    expect(validatePod(pod)).toContain('spec.initContainers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used');
  });
});
