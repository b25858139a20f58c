import { describe, expect, it } from 'vitest';
import { admissionNode } from '../../../src/domain/pod/admission-node.js';
import { nodeRegistrationSpec, nodeSideSettings } from '../../../src/domain/node-status/node-side-settings.js';

describe('admissionNode', () => {
  it('is the Node this kubelet registers: --node-labels under its own labels, --register-with-taints, its allocatable', () => {
    const settings = nodeSideSettings(
      { registerWithTaints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] },
      { nodeLabels: { zone: 'a', 'kubernetes.io/os': 'plan9' }, registerSchedulable: false },
    );
    const allocatable = { cpuMillis: 2000, memoryBytes: 1024, ephemeralStorageBytes: 2048, pods: 110 };
    const node = admissionNode(nodeRegistrationSpec(settings, 'node-a', { operatingSystem: 'linux', architecture: 'amd64' }), allocatable);
    expect(node).toEqual({
      name: 'node-a',
      operatingSystem: 'linux',
      labels: {
        zone: 'a',
        'kubernetes.io/hostname': 'node-a',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
      },
      taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
      allocatable,
    });
  });
});
