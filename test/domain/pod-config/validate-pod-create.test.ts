import { describe, expect, it } from 'vitest';
import { validatePod } from '../../../src/domain/pod-config/validate-pod.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT_BYTES } from '../../../src/domain/pod-config/validate-pod-create.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const valid = (): Pod => ({
  metadata: { name: 'web-node-1', namespace: 'default', uid: 'u', labels: { 'app.kubernetes.io/name': 'web', tier: '' }, annotations: { 'example.com/Note': 'x' } },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', ports: [{ containerPort: 80, hostPort: 0 }], env: [{ name: 'A', value: '1' }] }] },
});

describe('validatePod, ValidatePodCreate rules for static pods (#14)', () => {
  it('accepts a valid pod with labels, annotations, host port 0 and env', () => {
    expect(validatePod(valid())).toEqual([]);
  });

  it.each<[string, (p: Pod) => void, string]>([
    ['hostPort -5', (p) => { p.spec.containers[0]!.ports = [{ containerPort: 80, hostPort: -5 }]; }, 'spec.containers[0].ports[0].hostPort: Invalid value: -5: must be between 1 and 65535, inclusive'],
    ['an env entry named ""', (p) => { p.spec.containers[0]!.env = [{ name: '' }]; }, 'spec.containers[0].env[0].name: Required value'],
    ['label key !!bad', (p) => { p.metadata.labels = { '!!bad': 'x' }; }, 'metadata.labels: Invalid value: "!!bad": name part must consist of alphanumeric characters'],
    ['periodSeconds -1', (p) => { p.spec.containers[0]!.livenessProbe = { exec: { command: ['true'] }, periodSeconds: -1 }; }, 'spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0'],
    ['a -1Gi request', (p) => { p.spec.containers[0]!.resources = { requests: { memory: '-1Gi' } }; }, 'spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0'],
    ['activeDeadlineSeconds -1', (p) => { p.spec.activeDeadlineSeconds = -1; }, 'spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, inclusive'],
    ['annotations over 256 KiB', (p) => { p.metadata.annotations = { big: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) }; }, 'metadata.annotations: Too long: may not be more than 262144 bytes'],
  ])('rejects %s with Go\'s message', (_what, change, message) => {
    const pod = valid();
    change(pod);
    expect(validatePod(pod)).toEqual([expect.stringContaining(message)]);
  });
});
