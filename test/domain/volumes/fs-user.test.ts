import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { fsUserFrom } from '../../../src/domain/volumes/fs-user.js';

const c = (name: string, runAsUser?: number): Container => ({ name, image: 'x:1', ...(runAsUser === undefined ? {} : { securityContext: { runAsUser } }) });
const pod = (containers: Container[], podUser?: number, init: Container[] = []): Pod => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u' },
  spec: { containers, initContainers: init, ...(podUser === undefined ? {} : { securityContext: { runAsUser: podUser } }) },
});

describe('fsUserFrom', () => {
  it('is the pod\'s runAsUser when no container overrides it', () => {
    expect(fsUserFrom(pod([c('a'), c('b')], 1000))).toBe(1000);
  });

  it('is the containers\' common runAsUser, init containers included', () => {
    expect(fsUserFrom(pod([c('a', 7)], undefined, [c('i', 7)]))).toBe(7);
  });

  it('is undefined when two containers run as different users', () => {
    expect(fsUserFrom(pod([c('a', 7), c('b')], 8))).toBeUndefined();
  });

  it('is undefined when a container has no user', () => {
    expect(fsUserFrom(pod([c('a', 7), c('b')]))).toBeUndefined();
  });
});
