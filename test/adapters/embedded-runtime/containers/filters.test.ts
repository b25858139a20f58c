import { describe, expect, it } from 'vitest';
import { filterContainers, filterSandboxes, matchesLabelSelector } from '../../../../src/adapters/embedded-runtime/containers/filters.js';
import type { Container, PodSandbox } from '../../../../src/ports/cri.js';

function sandbox(id: string, state: PodSandbox['state'], labels: Record<string, string>): PodSandbox {
  return { id, metadata: { name: id, uid: id, namespace: 'ns', attempt: 0 }, state, created_at: '1', labels, annotations: {}, runtime_handler: '' };
}
function container(id: string, pod: string, state: Container['state'], labels: Record<string, string>): Container {
  return { id, pod_sandbox_id: pod, metadata: { name: id, attempt: 0 }, image: { image: 'i', annotations: {}, user_specified_image: '', runtime_handler: '' }, image_ref: 'r', image_id: 'r', state, created_at: '1', labels, annotations: {} };
}

const sandboxes = [
  sandbox('s1', 'SANDBOX_READY', { app: 'web', tier: 'front' }),
  sandbox('s2', 'SANDBOX_NOTREADY', { app: 'web' }),
  sandbox('s3', 'SANDBOX_READY', { app: 'db' }),
];
const containers = [
  container('c1', 's1', 'CONTAINER_RUNNING', { role: 'main' }),
  container('c2', 's1', 'CONTAINER_EXITED', { role: 'init' }),
  container('c3', 's3', 'CONTAINER_RUNNING', { role: 'main' }),
];

describe('matchesLabelSelector', () => {
  it.each([
    [{}, true],
    [{ app: 'web' }, true],
    [{ app: 'web', tier: 'front' }, true],
    [{ app: 'db' }, false],
    [{ missing: '' }, false],
  ])('selector %j on {app:web,tier:front} → %s', (selector, expected) => {
    expect(matchesLabelSelector({ app: 'web', tier: 'front' }, selector)).toBe(expected);
  });
});

describe('filterSandboxes', () => {
  it.each([
    [undefined, ['s1', 's2', 's3']],
    [{}, ['s1', 's2', 's3']],
    [{ id: 's2' }, ['s2']],
    [{ state: { state: 'SANDBOX_READY' as const } }, ['s1', 's3']],
    [{ label_selector: { app: 'web' } }, ['s1', 's2']],
    [{ state: { state: 'SANDBOX_READY' as const }, label_selector: { app: 'web' } }, ['s1']],
    [{ id: 's3', label_selector: { app: 'web' } }, []],
  ])('filter %j → %j', (filter, ids) => {
    expect(filterSandboxes<PodSandbox['state'], PodSandbox>(sandboxes, filter).map((s) => s.id)).toEqual(ids);
  });
});

describe('filterContainers', () => {
  it.each([
    [null, ['c1', 'c2', 'c3']],
    [{ pod_sandbox_id: 's1' }, ['c1', 'c2']],
    [{ state: { state: 'CONTAINER_RUNNING' as const } }, ['c1', 'c3']],
    [{ label_selector: { role: 'main' }, pod_sandbox_id: 's3' }, ['c3']],
    [{ id: 'c2', state: { state: 'CONTAINER_RUNNING' as const } }, []],
  ])('filter %j → %j', (filter, ids) => {
    expect(filterContainers<Container['state'], Container>(containers, filter).map((c) => c.id)).toEqual(ids);
  });
});
