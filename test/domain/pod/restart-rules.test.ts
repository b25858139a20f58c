import { describe, expect, it } from 'vitest';
import { getPodPhase } from '../../../src/domain/pod/phase.js';
import { containerShouldRestart, findMatchingRestartRule, restartsWithoutExitCode } from '../../../src/domain/pod/restart-rules.js';
import type { Container, ContainerRestartRule, ContainerStatus, Pod, RestartPolicy } from '../../../src/domain/pod/types.js';

const on = (operator: string, values: number[], action = 'Restart'): ContainerRestartRule => ({ action, exitCodes: { operator, values } });

describe('findMatchingRestartRule', () => {
  it.each<[string, ContainerRestartRule[], number, ContainerRestartRule | undefined]>([
    ['In matches a listed code', [on('In', [42, 43])], 43, on('In', [42, 43])],
    ['In does not match an unlisted code', [on('In', [42])], 1, undefined],
    ['NotIn matches an unlisted code', [on('NotIn', [0])], 7, on('NotIn', [0])],
    ['NotIn does not match a listed code', [on('NotIn', [0])], 0, undefined],
    ['the first matching rule wins', [on('In', [1], 'RestartAllContainers'), on('In', [1])], 1, on('In', [1], 'RestartAllContainers')],
    ['an unknown operator matches nothing', [on('Between', [1])], 1, undefined],
    ['a rule without exit codes matches nothing', [{ action: 'Restart' }], 1, undefined],
  ])('%s', (_, rules, code, expected) => {
    expect(findMatchingRestartRule({ restartPolicyRules: rules }, code)).toEqual(expected);
  });
});

describe('containerShouldRestart', () => {
  type C = Pick<Container, 'restartPolicy' | 'restartPolicyRules'>;
  it.each<[string, C, RestartPolicy | undefined, number, boolean]>([
    ['no container policy: the pod\'s Always', {}, 'Always', 0, true],
    ['no container policy: the pod\'s OnFailure on success', {}, 'OnFailure', 0, false],
    ['no container policy: the pod\'s OnFailure on failure', {}, 'OnFailure', 3, true],
    ['no container policy: the pod\'s Never', {}, 'Never', 3, false],
    ['no policy anywhere: Always, the API default', {}, undefined, 3, true],
    ['the container\'s Never overrides the pod\'s Always', { restartPolicy: 'Never' }, 'Always', 1, false],
    ['the container\'s Always overrides the pod\'s Never', { restartPolicy: 'Always' }, 'Never', 0, true],
    ['the container\'s OnFailure overrides the pod\'s Always on success', { restartPolicy: 'OnFailure' }, 'Always', 0, false],
    ['a matching Restart rule restarts under Never', { restartPolicy: 'Never', restartPolicyRules: [on('In', [42])] }, 'Never', 42, true],
    ['a rule that does not match leaves it to the container\'s Never', { restartPolicy: 'Never', restartPolicyRules: [on('In', [42])] }, 'Always', 1, false],
    ['NotIn restarts on any code not listed', { restartPolicy: 'Never', restartPolicyRules: [on('NotIn', [0])] }, 'Never', 9, true],
    ['NotIn leaves a listed code to the policy', { restartPolicy: 'Never', restartPolicyRules: [on('NotIn', [0])] }, 'Never', 0, false],
    ['an action not known here falls through to the container\'s policy', { restartPolicy: 'Never', restartPolicyRules: [on('In', [1], 'RestartAllContainers')] }, 'Always', 1, false],
    ['rules without a container policy are not read', { restartPolicyRules: [on('In', [1])] }, 'Never', 1, false],
  ])('%s', (_, container, podPolicy, code, expected) => {
    expect(containerShouldRestart(container, podPolicy === undefined ? {} : { restartPolicy: podPolicy }, code)).toBe(expected);
  });
});

describe('restartsWithoutExitCode', () => {
  it('without an exit code only the policies count, the container\'s first', () => {
    const neverWithRule: Container = { name: 'c', image: 'i', restartPolicy: 'Never', restartPolicyRules: [on('In', [1])] };
    expect(restartsWithoutExitCode(neverWithRule, { restartPolicy: 'Always' })).toBe(false);
    expect(restartsWithoutExitCode({ restartPolicy: 'OnFailure' }, { restartPolicy: 'Never' })).toBe(true);
    expect(restartsWithoutExitCode({}, { restartPolicy: 'Never' })).toBe(false);
    expect(restartsWithoutExitCode({}, {})).toBe(true);
  });
});

describe('getPodPhase with container restart rules', () => {
  function pod(restartPolicy: RestartPolicy, containers: Container[], initContainers?: Container[]): Pod {
    return { metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { restartPolicy, containers, ...(initContainers ? { initContainers } : {}) } };
  }
  const exited = (name: string, exitCode: number): ContainerStatus =>
    ({ name, ready: false, restartCount: 0, image: 'i', imageID: '', state: { terminated: { exitCode } } } as ContainerStatus);
  const waitingAfter = (name: string, exitCode: number): ContainerStatus =>
    ({ name, ready: false, restartCount: 1, image: 'i', imageID: '', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode } } } as ContainerStatus);
  const app = (c: Partial<Container> = {}): Container => ({ name: 'app', image: 'i', ...c });

  it.each<[string, Pod, ContainerStatus[], string]>([
    ['a container restarted by its rule keeps a Never pod Running', pod('Never', [app({ restartPolicy: 'Never', restartPolicyRules: [on('In', [42])] })]), [exited('app', 42)], 'Running'],
    ['…also while it waits in back-off', pod('Never', [app({ restartPolicy: 'Never', restartPolicyRules: [on('In', [42])] })]), [waitingAfter('app', 42)], 'Running'],
    ['a rule that does not match: the pod fails', pod('Never', [app({ restartPolicy: 'Never', restartPolicyRules: [on('In', [42])] })]), [exited('app', 1)], 'Failed'],
    ['a container\'s Never in an Always pod: the pod fails', pod('Always', [app({ restartPolicy: 'Never' })]), [exited('app', 1)], 'Failed'],
    ['a container\'s Never in an Always pod that exited 0: Succeeded', pod('Always', [app({ restartPolicy: 'Never' })]), [exited('app', 0)], 'Succeeded'],
    ['a container\'s Always in a Never pod: Running', pod('Never', [app({ restartPolicy: 'Always' })]), [exited('app', 0)], 'Running'],
    ['the pod\'s policy when the container has none (OnFailure, failed)', pod('OnFailure', [app()]), [exited('app', 1)], 'Running'],
    ['the pod\'s policy when the container has none (Never, failed)', pod('Never', [app()]), [exited('app', 1)], 'Failed'],
    ['an init container retried by its rule keeps a Never pod Pending',
      pod('Never', [app()], [{ name: 'init', image: 'i', restartPolicy: 'Never', restartPolicyRules: [on('NotIn', [0])] }]), [exited('init', 5)], 'Pending'],
    ['an init container whose own Never says no fails an Always pod',
      pod('Always', [app()], [{ name: 'init', image: 'i', restartPolicy: 'Never' }]), [exited('init', 5)], 'Failed'],
    ['an init container failed under the pod\'s Never fails the pod', pod('Never', [app()], [{ name: 'init', image: 'i' }]), [waitingAfter('init', 5)], 'Failed'],
  ])('%s', (_, p, statuses, phase) => {
    expect(getPodPhase(p, statuses, false)).toBe(phase);
  });
});
