import { describe, expect, it } from 'vitest';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';
import { canBeDeleted } from '../../../src/domain/status-manager/pod-deletion.js';

const pod = (meta: Partial<Pod['metadata']> = {}): Pod => ({ metadata: { name: 'p', uid: 'u', deletionTimestamp: 't', ...meta }, spec: { containers: [] } });
const container = (state: 'running' | 'terminated' | 'waiting') => ({
  name: 'c', ready: false, restartCount: 0, image: 'i', imageID: '',
  state: state === 'running' ? { running: {} } : state === 'terminated' ? { terminated: { exitCode: 0 } } : { waiting: { reason: 'x' } },
});

describe('canBeDeleted', () => {
  it.each<[string, Pod, PodStatus | null, boolean]>([
    ['terminal, nothing running', pod(), { phase: 'Succeeded', containerStatuses: [container('terminated')] }, true],
    ['not being deleted', pod({ deletionTimestamp: undefined }), { phase: 'Succeeded' }, false],
    ['phase not terminal', pod(), { phase: 'Running', containerStatuses: [container('terminated')] }, false],
    ['a container still running', pod(), { phase: 'Failed', containerStatuses: [container('running')] }, false],
    ['an init container running', pod(), { phase: 'Failed', initContainerStatuses: [container('running')] }, false],
    ['a mirror pod', pod({ annotations: { 'kubernetes.io/config.mirror': 'h' } }), { phase: 'Failed' }, false],
    ['no status sent', pod(), null, false],
  ])('%s → %s', (_name, p, status, expected) => {
    expect(canBeDeleted(p, status)).toBe(expected);
  });
});
