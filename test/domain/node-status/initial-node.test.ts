import { describe, expect, it } from 'vitest';
import { ANNOTATION_CMAD, initialNode, reconcileExistingNode, type NodeRegistrationSpec } from '../../../src/domain/node-status/initial-node.js';

const spec: NodeRegistrationSpec = {
  nodeName: 'worker-1', hostname: 'worker-1', operatingSystem: 'linux', architecture: 'arm64',
  nodeLabels: { 'node-role.kubernetes.io/worker': '', 'kubernetes.io/hostname': 'spoofed' },
  registerWithTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
  registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
};

describe('initialNode', () => {
  it('carries the default labels over --node-labels, the taints and the attach-detach annotation', () => {
    const node = initialNode(spec);
    expect(node.metadata).toEqual({
      name: 'worker-1',
      labels: {
        'node-role.kubernetes.io/worker': '',
        'kubernetes.io/hostname': 'worker-1',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'arm64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'arm64',
      },
      annotations: { [ANNOTATION_CMAD]: 'true' },
    });
    expect(node.spec?.taints).toEqual([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
  });

  it('adds the unschedulable taint once when --register-schedulable=false', () => {
    const node = initialNode({ ...spec, registerWithTaints: [], registerSchedulable: false, enableControllerAttachDetach: false });
    expect(node.spec?.taints).toEqual([{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
    expect(node.metadata.annotations).toBeUndefined();
  });

  it('registers with the uninitialized taint under --cloud-provider=external, after the others, once', () => {
    const node = initialNode({ ...spec, externalCloudProvider: true, registerSchedulable: false });
    expect(node.spec?.taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
      { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    ]);
    const given = [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' as const }];
    expect(initialNode({ ...spec, registerWithTaints: given, externalCloudProvider: true }).spec?.taints).toEqual(given);
  });
});

describe('reconcileExistingNode', () => {
  it('fixes drifted default labels and the annotation, keeping everything else', () => {
    const existing = { metadata: { name: 'worker-1', uid: 'u', labels: { 'kubernetes.io/arch': 'amd64', team: 'a' }, annotations: { keep: 'me' } }, spec: { taints: [] } };
    const { node, changed } = reconcileExistingNode(existing, spec);
    expect(changed).toBe(true);
    expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/arch': 'arm64', team: 'a', 'kubernetes.io/hostname': 'worker-1' });
    expect(node.metadata.labels?.['node-role.kubernetes.io/worker']).toBeUndefined();
    expect(node.metadata.annotations).toEqual({ keep: 'me', [ANNOTATION_CMAD]: 'true' });
    expect(existing.metadata.labels['kubernetes.io/arch']).toBe('amd64');
  });

  it('reports no change for a Node already in line', () => {
    const first = initialNode(spec);
    expect(reconcileExistingNode(first, spec).changed).toBe(false);
  });

  it('removes the annotation when attach-detach is no longer controller-managed', () => {
    const { node, changed } = reconcileExistingNode(initialNode(spec), { ...spec, enableControllerAttachDetach: false });
    expect(changed).toBe(true);
    expect(node.metadata.annotations).toEqual({});
  });
});
