import { describe, expect, it } from 'vitest';
import { isDns1123Label, isDns1123Subdomain, validatePod } from '../../../src/domain/pod-config/validate-pod.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const valid = (): Pod => ({
  metadata: { name: 'web-node-1', namespace: 'default', uid: 'u' },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
});

describe('validatePod', () => {
  it('accepts a valid pod', () => {
    expect(validatePod(valid())).toEqual([]);
  });

  it.each<[string, (p: Pod) => void, string]>([
    ['an empty name', (p) => { p.metadata.name = ''; }, 'metadata.name: Required value'],
    ['an upper-case name', (p) => { p.metadata.name = 'Web'; }, 'metadata.name: Invalid value: "Web"'],
    ['a name over 253 characters', (p) => { p.metadata.name = 'a'.repeat(254); }, 'metadata.name: Invalid value'],
    ['a namespace with a dot', (p) => { p.metadata.namespace = 'a.b'; }, 'metadata.namespace: Invalid value'],
    ['no containers', (p) => { p.spec.containers = []; }, 'spec.containers: Required value'],
    ['a container without name', (p) => { p.spec.containers[0]!.name = ''; }, 'spec.containers[0].name: Required value'],
    ['a container name with underscore', (p) => { p.spec.containers[0]!.name = 'a_b'; }, 'spec.containers[0].name: Invalid value'],
    ['duplicate container names', (p) => { p.spec.containers.push({ name: 'main', image: 'x' }); }, 'spec.containers[1].name: Duplicate value: "main"'],
    ['an init container named like a container', (p) => { p.spec.initContainers = [{ name: 'main', image: 'x' }]; }, 'spec.containers[0].name: Duplicate value: "main"'],
    ['a blank image', (p) => { p.spec.containers[0]!.image = '  '; }, 'spec.containers[0].image: Required value'],
    ['an invalid restartPolicy', (p) => { p.spec.restartPolicy = 'Sometimes' as never; }, 'spec.restartPolicy: Unsupported value: "Sometimes"'],
    ['an invalid dnsPolicy', (p) => { p.spec.dnsPolicy = 'Google' as never; }, 'spec.dnsPolicy: Unsupported value'],
    ['an invalid imagePullPolicy', (p) => { p.spec.containers[0]!.imagePullPolicy = 'Maybe' as never; }, 'spec.containers[0].imagePullPolicy: Unsupported value'],
    ['a negative grace period', (p) => { p.spec.terminationGracePeriodSeconds = -1; }, 'spec.terminationGracePeriodSeconds: Invalid value'],
    ['port 0', (p) => { p.spec.containers[0]!.ports = [{ containerPort: 0 }]; }, 'spec.containers[0].ports[0].containerPort: Invalid value'],
    ['an unknown protocol', (p) => { p.spec.containers[0]!.ports = [{ containerPort: 1, protocol: 'ICMP' as never }]; }, 'spec.containers[0].ports[0].protocol: Unsupported value'],
    ['a limit that is not a quantity', (p) => { p.spec.containers[0]!.resources = { limits: { memory: '1 GB' } }; }, 'spec.containers[0].resources.limits[memory]: Invalid value: "1 GB": quantities must match'],
    ['a request that is not text', (p) => { p.spec.containers[0]!.resources = { requests: { cpu: true as never } }; }, 'spec.containers[0].resources.requests[cpu]: Invalid value: true: must be a quantity'],
    ['an overhead that is not a quantity', (p) => { p.spec.overhead = { cpu: 'x' }; }, 'spec.overhead[cpu]: Invalid value: "x"'],
    ['a pod-level request that is not a quantity', (p) => { p.spec.resources = { requests: { memory: '2XB' } }; }, 'spec.resources.requests[memory]: Invalid value: "2XB"'],
  ])('rejects %s, naming the field', (_what, edit, expected) => {
    const pod = valid();
    edit(pod);
    const errors = validatePod(pod);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(expected);
  });

  it('reports every problem at once', () => {
    const pod = valid();
    pod.spec.restartPolicy = 'x' as never;
    pod.spec.containers[0]!.image = '';
    expect(validatePod(pod)).toHaveLength(2);
  });

  it.each([
    ['a', true, true],
    ['a-b.c', true, false],
    ['-a', false, false],
    ['a-', false, false],
    ['A', false, false],
    ['a'.repeat(63), true, true],
    ['a'.repeat(64), true, false],
  ])('knows %s is subdomain=%s label=%s', (value, subdomain, label) => {
    expect(isDns1123Subdomain(value)).toBe(subdomain);
    expect(isDns1123Label(value)).toBe(label);
  });
});
