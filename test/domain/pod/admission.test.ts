import { describe, expect, it } from 'vitest';
import { withApiNode, type AdmissionNode } from '../../../src/domain/pod/admission-node.js';
import { admitPod, refusedOnlyForNodeAffinity, rejectedPodStatus } from '../../../src/domain/pod/admission.js';
import { EMPTY_USAGE, usageOf } from '../../../src/domain/pod/node-usage.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const node: AdmissionNode = {
  name: 'node-a',
  operatingSystem: 'linux',
  labels: { 'kubernetes.io/hostname': 'node-a', 'kubernetes.io/os': 'linux', zone: 'a' },
  taints: [],
  allocatable: { cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30, pods: 110 },
};

function pod(spec: Partial<Pod['spec']> = {}, container: Partial<Container> = {}, meta: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u', annotations: { 'kubernetes.io/config.source': 'api' }, ...meta },
    spec: { containers: [{ name: 'main', image: 'busybox', ...container }], ...spec },
  };
}
const requesting = (requests: Record<string, string>) => pod({}, { resources: { requests } });
const staticPod = (spec: Partial<Pod['spec']> = {}) => pod(spec, {}, { annotations: { 'kubernetes.io/config.source': 'file' } });

describe('admitPod', () => {
  it('admits a pod that asks for nothing on an empty node', () => {
    expect(admitPod(pod(), node, EMPTY_USAGE)).toEqual({ admit: true });
  });

  describe('resources (NodeResourcesFit)', () => {
    it('refuses one pod more than the allocatable pod count with OutOfpods, even when it requests nothing', () => {
      const full = usageOf(Array.from({ length: 3 }, () => pod()));
      expect(admitPod(pod(), { ...node, allocatable: { ...node.allocatable, pods: 3 } }, full)).toEqual({
        admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
      });
    });

    it.each([
      ['cpu', { cpu: '1000' }, 'OutOfcpu', "Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 4000"],
      ['memory', { memory: '9Gi' }, 'OutOfmemory', `Node didn't have enough resource: memory, requested: ${9 * 2 ** 30}, used: 0, capacity: ${8 * 2 ** 30}`],
      ['ephemeral-storage', { 'ephemeral-storage': '101Gi' }, 'OutOfephemeral-storage', `Node didn't have enough resource: ephemeral-storage, requested: ${101 * 2 ** 30}, used: 0, capacity: ${100 * 2 ** 30}`],
      ['hugepages (a scalar the node has none of)', { 'hugepages-2Mi': '2Mi' }, 'OutOfhugepages-2Mi', `Node didn't have enough resource: hugepages-2Mi, requested: ${2 ** 21}, used: 0, capacity: 0`],
    ])('refuses a pod whose %s request does not fit', (_what, requests, reason, message) => {
      expect(admitPod(requesting(requests), node, EMPTY_USAGE)).toEqual({ admit: false, reason, message });
    });

    it('counts what the active pods request as used, and admits up to exactly what is left', () => {
      const used = usageOf([requesting({ cpu: '3', memory: '1Gi' })]);
      expect(admitPod(requesting({ cpu: '1' }), node, used)).toEqual({ admit: true });
      expect(admitPod(requesting({ cpu: '1001m' }), node, used)).toEqual({
        admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 1001, used: 3000, capacity: 4000",
      });
    });

    it('reports the first resource that does not fit: pods before cpu before memory', () => {
      const tiny: AdmissionNode = { ...node, allocatable: { cpuMillis: 100, memoryBytes: 100, ephemeralStorageBytes: 100, pods: 0 } };
      expect(admitPod(requesting({ cpu: '1', memory: '1Gi' }), tiny, EMPTY_USAGE)).toMatchObject({ reason: 'OutOfpods' });
      expect(admitPod(requesting({ cpu: '1', memory: '1Gi' }), { ...tiny, allocatable: { ...tiny.allocatable, pods: 1 } }, EMPTY_USAGE)).toMatchObject({ reason: 'OutOfcpu' });
      expect(admitPod(requesting({ memory: '1Gi' }), { ...tiny, allocatable: { ...tiny.allocatable, pods: 1 } }, EMPTY_USAGE)).toMatchObject({ reason: 'OutOfmemory' });
    });

    it('does not check an extended resource the node does not have (removeMissingExtendedResources)', () => {
      expect(admitPod(requesting({ 'example.com/gpu': '4' }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('puts resources before node affinity, so a pod failing both is OutOfcpu', () => {
      const both = pod({ nodeSelector: { zone: 'b' } }, { resources: { requests: { cpu: '5' } } });
      expect(admitPod(both, node, EMPTY_USAGE)).toMatchObject({ reason: 'OutOfcpu' });
    });
  });

  describe('node OS', () => {
    it('refuses a pod whose kubernetes.io/os label names another OS, before anything else', () => {
      const windows = pod({ nodeName: 'other' }, {}, { labels: { 'kubernetes.io/os': 'windows' } });
      expect(admitPod(windows, { ...node, allocatable: { ...node.allocatable, pods: 0 } }, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
      });
      expect(admitPod(pod({}, {}, { labels: { 'kubernetes.io/os': 'linux' } }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('refuses a pod whose spec.os is another OS', () => {
      expect(admitPod(pod({ os: { name: 'windows' } }), node, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS",
      });
      expect(admitPod(pod({ os: { name: 'linux' } }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });
  });

  describe('features the node cannot give', () => {
    it('refuses SupplementalGroupsPolicy Strict with Go\'s reason and message, and admits Merge', () => {
      expect(admitPod(pod({ securityContext: { supplementalGroupsPolicy: 'Strict' } }), node, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'SupplementalGroupsPolicyNotSupported', message: 'SupplementalGroupsPolicy=Strict is not supported in this node',
      });
      expect(admitPod(pod({ securityContext: { supplementalGroupsPolicy: 'Merge' } }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('admits DRA claims on a node that can prepare them (cluster mode), still refusing what it lacks beside them', () => {
      const claims = pod({ resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }, { resources: { claims: [{ name: 'gpu' }] } });
      const draNode = { ...node, dynamicResources: true };
      expect(admitPod(claims, draNode, EMPTY_USAGE)).toEqual({ admit: true });
      const withImage = pod({ resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }], volumes: [{ name: 'tools', image: { reference: 'tools:1' } }] });
      expect(admitPod(withImage, draNode, EMPTY_USAGE)).toMatchObject({ message: 'kubelet-ts does not support yet what this pod asks for: spec.volumes[0].image (ImageVolume)' });
    });

    it('refuses a pod setting fields of v1.35 features kubelet-ts lacks, naming every field and its feature (standalone: DRA claims too)', () => {
      const asking = pod({
        resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }],
        volumes: [{ name: 'tools', image: { reference: 'tools:1' } }],
        initContainers: [{ name: 'side', image: 'busybox', restartPolicy: 'Always' }],
      }, {
        restartPolicy: 'Never',
        restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }],
        env: [{ name: 'A', value: 'a' }, { name: 'B', valueFrom: { fileKeyRef: { volumeName: 'cfg', path: 'env', key: 'B' } } }],
        resources: { claims: [{ name: 'gpu' }] },
      });
      expect(admitPod(asking, node, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'PodFeatureNotSupported',
        message: 'kubelet-ts does not support yet what this pod asks for: spec.resourceClaims (DynamicResourceAllocation), '
          + 'spec.volumes[0].image (ImageVolume), spec.containers[0].resources.claims (DynamicResourceAllocation)',
      });
    });

    it('admits container restart rules (a container\'s own restartPolicy and restartPolicyRules), which it has', () => {
      const rules = { restartPolicy: 'Never' as const, restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] };
      const asking = pod({ initContainers: [{ name: 'init', image: 'busybox', ...rules }] }, rules);
      expect(admitPod(asking, node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('admits a sidecar (restartPolicy Always on an init container) and an env file variable (fileKeyRef), which it has', () => {
      expect(admitPod(pod({ initContainers: [{ name: 'side', image: 'busybox', restartPolicy: 'Always' }] }), node, EMPTY_USAGE)).toEqual({ admit: true });
      const envFile = pod({}, { env: [{ name: 'B', valueFrom: { fileKeyRef: { volumeName: 'cfg', path: 'env', key: 'B' } } }] });
      expect(admitPod(envFile, node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('refuses before the general filter, so such a pod is never read again for node affinity', () => {
      const both = pod({ nodeSelector: { zone: 'b' }, resourceClaims: [{ name: 'gpu', resourceClaimName: 'c' }] });
      expect(admitPod(both, node, EMPTY_USAGE)).toMatchObject({ reason: 'PodFeatureNotSupported' });
      expect(refusedOnlyForNodeAffinity(both, node, EMPTY_USAGE)).toBe(false);
    });
  });

  describe('predicates', () => {
    it('NodeAffinity: refuses a nodeSelector the node\'s labels lack', () => {
      expect(admitPod(pod({ nodeSelector: { zone: 'b' } }), node, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
      });
      expect(admitPod(pod({ nodeSelector: { zone: 'a' } }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('NodeName: refuses a pod bound to another node', () => {
      expect(admitPod(pod({ nodeName: 'node-b' }), node, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'NodeName', message: "Predicate NodeName failed: node(s) didn't match the requested node name",
      });
      expect(admitPod(pod({ nodeName: 'node-a' }), node, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('NodePorts: refuses a host port an active pod holds', () => {
      const holder = pod({}, { ports: [{ containerPort: 80, hostPort: 8080 }] });
      const wanting = pod({}, { ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }] });
      expect(admitPod(wanting, node, usageOf([holder]))).toEqual({
        admit: false, reason: 'NodePorts', message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
      });
      expect(admitPod(pod({}, { ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'UDP' }] }), node, usageOf([holder]))).toEqual({ admit: true });
    });

    it('TaintToleration: refuses an untolerated NoExecute taint, not a NoSchedule one', () => {
      const tainted = { ...node, taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' as const }] };
      expect(admitPod(pod(), tainted, EMPTY_USAGE)).toEqual({
        admit: false, reason: 'TaintToleration', message: "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
      });
      expect(admitPod(pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoExecute' }] }), tainted, EMPTY_USAGE)).toEqual({ admit: true });
      expect(admitPod(pod(), { ...node, taints: [{ key: 'dedicated', effect: 'NoSchedule' }] }, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('TaintToleration: does not apply to static pods', () => {
      const tainted = { ...node, taints: [{ key: 'dedicated', effect: 'NoExecute' as const }] };
      expect(admitPod(staticPod(), tainted, EMPTY_USAGE)).toEqual({ admit: true });
    });

    it('reports NodeAffinity before NodeName before NodePorts before TaintToleration', () => {
      const tainted = { ...node, taints: [{ key: 'k', effect: 'NoExecute' as const }] };
      const holder = usageOf([pod({}, { ports: [{ containerPort: 1, hostPort: 9000 }] })]);
      const ports = { ports: [{ containerPort: 1, hostPort: 9000 }] };
      expect(admitPod(pod({ nodeSelector: { zone: 'b' }, nodeName: 'x' }, ports), tainted, holder)).toMatchObject({ reason: 'NodeAffinity' });
      expect(admitPod(pod({ nodeName: 'x' }, ports), tainted, holder)).toMatchObject({ reason: 'NodeName' });
      expect(admitPod(pod({}, ports), tainted, holder)).toMatchObject({ reason: 'NodePorts' });
      expect(admitPod(pod(), tainted, holder)).toMatchObject({ reason: 'TaintToleration' });
    });
  });
});

describe('rejectedPodStatus', () => {
  it('is Failed with the reason, the message after "Pod was rejected: ", and the QoS class', () => {
    const guaranteed = pod({}, { resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } });
    expect(rejectedPodStatus(guaranteed, { reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu" })).toEqual({
      phase: 'Failed', reason: 'OutOfcpu', message: "Pod was rejected: Node didn't have enough resource: cpu", qosClass: 'Guaranteed',
    });
  });

  it('leaves the class out rather than throw on a quantity that does not parse', () => {
    expect(rejectedPodStatus(requesting({ cpu: 'lots' }), { reason: 'R', message: 'm' })).toEqual({ phase: 'Failed', reason: 'R', message: 'Pod was rejected: m' });
  });
});

describe('admission against the Node as the API server has it', () => {
  const selecting = pod({ nodeSelector: { disktype: 'ssd' } });

  it('admits a pod selecting a label the Node got after registration, and refuses one the Node lost', () => {
    expect(admitPod(selecting, node, EMPTY_USAGE)).toMatchObject({ reason: 'NodeAffinity' });
    expect(admitPod(selecting, withApiNode(node, { labels: { ...node.labels, disktype: 'ssd' }, taints: [] }), EMPTY_USAGE)).toEqual({ admit: true });
    expect(admitPod(pod({ nodeSelector: { zone: 'a' } }), withApiNode(node, { labels: { 'kubernetes.io/os': 'linux' }, taints: [] }), EMPTY_USAGE)).toMatchObject({ reason: 'NodeAffinity' });
  });

  it('takes the Node\'s taints: a NoExecute taint added later refuses a pod that does not tolerate it', () => {
    const tainted = withApiNode(node, { labels: node.labels, taints: [{ key: 'maintenance', effect: 'NoExecute' }] });
    expect(admitPod(pod(), tainted, EMPTY_USAGE)).toMatchObject({ reason: 'TaintToleration' });
    expect(admitPod(pod({ tolerations: [{ key: 'maintenance', operator: 'Exists' }] }), tainted, EMPTY_USAGE)).toEqual({ admit: true });
  });
});

describe('refusedOnlyForNodeAffinity (Go reads the Node again then)', () => {
  it('is true when node affinity is all that failed', () => {
    expect(refusedOnlyForNodeAffinity(pod({ nodeSelector: { disktype: 'ssd' } }), node, EMPTY_USAGE)).toBe(true);
  });

  it.each([
    ['the pod is admitted', pod()],
    ['the node name fails too', pod({ nodeSelector: { disktype: 'ssd' }, nodeName: 'other' })],
    ['a resource fails too', pod({ nodeSelector: { disktype: 'ssd' } }, { resources: { requests: { cpu: '100' } } })],
    ['an untolerated NoExecute taint fails too', pod({ nodeSelector: { disktype: 'ssd' } })],
    ['the OS label refuses first', pod({ nodeSelector: { disktype: 'ssd' } }, {}, { labels: { 'kubernetes.io/os': 'windows' } })],
  ])('is false when %s', (what, p) => {
    const on = what.includes('taint') ? { ...node, taints: [{ key: 'k', effect: 'NoExecute' }] } : node;
    expect(refusedOnlyForNodeAffinity(p, on, EMPTY_USAGE)).toBe(false);
  });
});
