import { describe, expect, it } from 'vitest';
import { admitAppArmor } from '../../../src/domain/runtime/apparmor.js';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';

const key = (c: string) => `container.apparmor.security.beta.kubernetes.io/${c}`;

function pod(annotations: Record<string, string>, phase?: PodStatus['phase']): Pod {
  return {
    metadata: { name: 'p', uid: 'u', annotations },
    spec: { initContainers: [{ name: 'init', image: 'x' }], containers: [{ name: 'app', image: 'x' }] },
    ...(phase ? { status: { phase } } : {}),
  };
}

const notEnabled = { admit: false, reason: 'AppArmor', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host' };

// Go v1.26: lifecycle.appArmorAdmitHandler over apparmor.validator.
describe('admitAppArmor', () => {
  it.each<[string, Record<string, string>, PodStatus['phase'], boolean, object]>([
    ['no annotation, no AppArmor', {}, undefined, false, { admit: true }],
    ['only unconfined, no AppArmor', { [key('app')]: 'unconfined' }, 'Pending', false, { admit: true }],
    ['runtime/default, no AppArmor', { [key('app')]: 'runtime/default' }, 'Pending', false, notEnabled],
    ['a pod from a file (no phase), no AppArmor', { [key('app')]: 'localhost/x' }, undefined, false, notEnabled],
    ['an init container\'s, no AppArmor', { [key('init')]: 'runtime/default' }, 'Pending', false, notEnabled],
    ['a running pod, no AppArmor', { [key('app')]: 'runtime/default' }, 'Running', false, { admit: true }],
    ['runtime/default, AppArmor on', { [key('app')]: 'runtime/default' }, 'Pending', true, { admit: true }],
    ['localhost/<name>, AppArmor on', { [key('app')]: 'localhost/k8s-deny-write' }, 'Pending', true, { admit: true }],
    ['a value of no known form, AppArmor on', { [key('app')]: 'enforce' }, 'Pending', true,
      { admit: false, reason: 'AppArmor', message: 'Cannot enforce AppArmor: invalid AppArmor profile name: "enforce"' }],
  ])('%s', (_, annotations, phase, enabled, expected) => {
    expect(admitAppArmor(pod(annotations, phase), enabled)).toEqual(expected);
  });
});
