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

describe('validatePod: the ids the kubelet chowns to and runs as, and the pod\'s host name (Go\'s ValidatePodSecurityContext, ValidateDNS1123Label)', () => {
  it.each<[string, (p: Pod) => void, string]>([
    ['fsGroup -1', (p) => { p.spec.securityContext = { fsGroup: -1 }; }, 'spec.securityContext.fsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive'],
    ['fsGroup 2^32', (p) => { p.spec.securityContext = { fsGroup: 2 ** 32 }; }, 'spec.securityContext.fsGroup: Invalid value: 4294967296: must be between 0 and 2147483647, inclusive'],
    ['a pod runAsUser of -2', (p) => { p.spec.securityContext = { runAsUser: -2 }; }, 'spec.securityContext.runAsUser: Invalid value: -2'],
    ['a supplemental group of -1', (p) => { p.spec.securityContext = { supplementalGroups: [0, -1] }; }, 'spec.securityContext.supplementalGroups[1]: Invalid value: -1'],
    ['a container runAsGroup of 2^31', (p) => { p.spec.containers[0]!.securityContext = { runAsGroup: 2 ** 31 }; }, 'spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648'],
    ['a hostname with a dot', (p) => { p.spec.hostname = 'a.b'; }, 'spec.hostname: Invalid value: "a.b": a lowercase RFC 1123 label'],
    ['a subdomain with a new line', (p) => { p.spec.subdomain = 'a\nb'; }, 'spec.subdomain: Invalid value: "a\\nb"'],
  ])('rejects %s', (_what, change, message) => {
    const pod = valid();
    change(pod);
    expect(validatePod(pod)).toEqual([expect.stringContaining(message)]);
  });

  it('accepts ids 0 and 2147483647 and a DNS-label hostname', () => {
    const pod = valid();
    pod.spec.securityContext = { fsGroup: 0, runAsUser: 2147483647, runAsGroup: 0, supplementalGroups: [1, 2147483647] };
    pod.spec.hostname = 'web-0';
    expect(validatePod(pod)).toEqual([]);
  });
});
