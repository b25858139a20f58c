import { describe, expect, it } from 'vitest';
import { allocatableAnswer, getAnswer, listAnswer, type PodResourcesState } from '../../../src/domain/pod-resources/answers.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { expectedPod, largeNode } from './large-node.js';

const pod = (uid: string, name: string, spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { uid, name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'pause' }], ...spec },
});

const state = (over: Partial<PodResourcesState> = {}): PodResourcesState => ({
  pods: [],
  assignments: {},
  allocatable: { devices: {}, cpus: [], memory: [] },
  ...over,
});

describe('listAnswer', () => {
  it('lists each active pod with its containers and what each holds', () => {
    const s = state({
      pods: [{ pod: pod('u1', 'gpu'), active: true }, { pod: pod('u2', 'plain'), active: true }],
      assignments: { u1: { app: { devices: { 'example.com/resource': ['Dev-2'] }, cpus: [1], memory: { numaNodes: [0], bytes: { memory: 1024, 'hugepages-2Mi': 2097152 } } } } },
      allocatable: { devices: { 'example.com/resource': [{ id: 'Dev-1', healthy: true, numaNodes: [] }, { id: 'Dev-2', healthy: true, numaNodes: [0] }] }, cpus: [1], memory: [] },
    });
    expect(listAnswer(s, true)).toEqual({
      pod_resources: [
        {
          name: 'gpu', namespace: 'default', containers: [{
            name: 'app',
            devices: [{ resource_name: 'example.com/resource', device_ids: ['Dev-2'], topology: { nodes: [{ ID: 0 }] } }],
            cpu_ids: [1],
            memory: [
              { memory_type: 'hugepages-2Mi', size: 2097152, topology: { nodes: [{ ID: 0 }] } },
              { memory_type: 'memory', size: 1024, topology: { nodes: [{ ID: 0 }] } },
            ],
          }],
        },
        { name: 'plain', namespace: 'default', containers: [{ name: 'app', devices: [], cpu_ids: [], memory: [] }] },
      ],
    });
  });

  it('lists the DRA claims each container uses with one entry per prepared device, when DRA is there', () => {
    const claim = {
      claimUid: 'c-1', claimName: 'gpus', namespace: 'default', podUids: ['u1'], prepared: true,
      drivers: {
        'net.example.com': { devices: [{ poolName: 'node-1', deviceName: 'eth1', requestNames: [], cdiDeviceIds: [] }] },
        'gpu.example.com': { devices: [
          { poolName: 'node-1', deviceName: 'gpu-0', requestNames: ['big'], cdiDeviceIds: ['gpu.example.com/gpu=gpu-0'] },
          { poolName: 'node-1', deviceName: 'gpu-1', shareId: 's-1', requestNames: ['big'], cdiDeviceIds: ['gpu.example.com/gpu=gpu-1'] },
        ] },
      },
    };
    const p = pod('u1', 'trainer', { containers: [{ name: 'uses', image: 'i', resources: { claims: [{ name: 'accel' }] } }, { name: 'plain', image: 'i' }] });
    const s = state({ pods: [{ pod: p, active: true }], dynamicResources: (_pod, c) => (c.name === 'uses' ? [claim] : []) });
    expect(listAnswer(s, true).pod_resources[0]?.containers.map((c) => [c.name, c.dynamic_resources])).toEqual([
      ['uses', [{
        claim_name: 'gpus', claim_namespace: 'default', claim_resources: [
          { cdi_devices: [{ name: 'gpu.example.com/gpu=gpu-0' }], driver_name: 'gpu.example.com', pool_name: 'node-1', device_name: 'gpu-0' },
          { cdi_devices: [{ name: 'gpu.example.com/gpu=gpu-1' }], driver_name: 'gpu.example.com', pool_name: 'node-1', device_name: 'gpu-1', share_id: 's-1' },
          { cdi_devices: [], driver_name: 'net.example.com', pool_name: 'node-1', device_name: 'eth1' },
        ],
      }]],
      ['plain', []],
    ]);
    // Without DRA (standalone, or the gate off) the field is not there at all.
    expect(listAnswer(state({ pods: [{ pod: p, active: true }] }), true).pod_resources[0]?.containers[0]).not.toHaveProperty('dynamic_resources');
  });

  it('leaves inactive pods out, and lists them too when the active-pods gate is off', () => {
    const s = state({ pods: [{ pod: pod('u1', 'running'), active: true }, { pod: pod('u2', 'done'), active: false }] });
    expect(listAnswer(s, true).pod_resources.map((p) => p.name)).toEqual(['running']);
    expect(listAnswer(s, false).pod_resources.map((p) => p.name)).toEqual(['running', 'done']);
  });

  it('lists restartable init containers before the app containers and skips the other init containers', () => {
    const s = state({
      pods: [{
        pod: pod('u1', 'sidecar', {
          initContainers: [{ name: 'setup', image: 'pause' }, { name: 'proxy', image: 'pause', restartPolicy: 'Always' }],
        }),
        active: true,
      }],
    });
    expect(listAnswer(s, true).pod_resources[0]?.containers.map((c) => c.name)).toEqual(['proxy', 'app']);
  });

  it('gives a device one entry per NUMA node, none without topology, and keeps a device whose plugin is gone', () => {
    const s = state({
      pods: [{ pod: pod('u1', 'p'), active: true }],
      assignments: { u1: { app: { devices: { 'b.com/x': ['gone'], 'a.com/y': ['two', 'none'] } } } },
      allocatable: { devices: { 'a.com/y': [{ id: 'two', healthy: true, numaNodes: [0, 1] }, { id: 'none', healthy: true, numaNodes: [] }] }, cpus: [], memory: [] },
    });
    expect(listAnswer(s, true).pod_resources[0]?.containers[0]?.devices).toEqual([
      { resource_name: 'a.com/y', device_ids: ['none'] },
      { resource_name: 'a.com/y', device_ids: ['two'], topology: { nodes: [{ ID: 0 }] } },
      { resource_name: 'a.com/y', device_ids: ['two'], topology: { nodes: [{ ID: 1 }] } },
      { resource_name: 'b.com/x', device_ids: ['gone'] },
    ]);
  });
});

describe('listAnswer on a large node', () => {
  it('answers 1,000 pods holding 4 devices each, every device with its NUMA node or none when its plugin is gone', () => {
    const s = largeNode(1000);
    const list = listAnswer(s, true);
    expect(list.pod_resources).toHaveLength(1000);
    expect(list.pod_resources).toEqual(Array.from({ length: 1000 }, (_, i) => expectedPod(i)));
  });
});

describe('getAnswer', () => {
  it('answers the named pod, an active one before an ended one of the same name', () => {
    const s = state({
      pods: [{ pod: pod('old', 'web'), active: false }, { pod: pod('new', 'web'), active: true }],
      assignments: { new: { app: { cpus: [1] } }, old: { app: { cpus: [0] } } },
    });
    const got = getAnswer(s, 'default', 'web');
    expect(got).toMatchObject({ ok: true, answer: { pod_resources: { name: 'web', containers: [{ cpu_ids: [1] }] } } });
  });

  it("fails with Go's message for a pod the kubelet does not know", () => {
    expect(getAnswer(state(), 'kube-system', 'nope')).toEqual({ ok: false, message: 'pod nope in namespace kube-system not found' });
  });
});

describe('allocatableAnswer', () => {
  it('answers the healthy devices, the CPUs sorted and the memory per NUMA node', () => {
    expect(allocatableAnswer({
      devices: { 'example.com/resource': [{ id: 'Dev-1', healthy: true, numaNodes: [] }, { id: 'Dev-2', healthy: false, numaNodes: [] }] },
      cpus: [3, 1, 2],
      memory: [{ numaNode: 1, type: 'memory', bytes: 5 }, { numaNode: 0, type: 'memory', bytes: 7 }],
    })).toEqual({
      devices: [{ resource_name: 'example.com/resource', device_ids: ['Dev-1'] }],
      cpu_ids: [1, 2, 3],
      memory: [
        { memory_type: 'memory', size: 7, topology: { nodes: [{ ID: 0 }] } },
        { memory_type: 'memory', size: 5, topology: { nodes: [{ ID: 1 }] } },
      ],
    });
  });
});
