import { describe, expect, it } from 'vitest';
import { admitResources, type ResourceProvider } from '../../../src/domain/resource-managers/admit.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (uid: string, init: string[], app: string[]): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec: {
    ...(init.length > 0 ? { initContainers: init.map((name) => ({ name, image: 'busybox' })) } : {}),
    containers: app.map((name) => ({ name, image: 'busybox' })),
  },
});

/** Gives each container the lowest CPU no other pod and no earlier app container of this pod holds; refuses container `greedy`. */
const lowestFree: ResourceProvider = {
  name: 'cpu',
  hints: () => ({}),
  allocate: (ctx, container) => {
    if (container.name === 'greedy') return { ok: false, reason: 'UnexpectedAdmissionError', message: 'not enough cpus available to satisfy request' };
    const own = ctx.podAssignment[container.name]?.cpus;
    if (own) return { ok: true, assignment: { cpus: own } };
    const held = new Set(Object.values(ctx.assignments).flatMap((p) => Object.values(p).flatMap((c) => c.cpus ?? [])));
    const initNames = new Set((ctx.pod.spec.initContainers ?? []).map((c) => c.name));
    for (const [name, share] of Object.entries(ctx.podAssignment)) if (!initNames.has(name)) for (const id of share.cpus ?? []) held.add(id);
    let id = 0;
    while (held.has(id)) id++;
    return { ok: true, assignment: { cpus: [id] } };
  },
};

const devices: ResourceProvider = {
  name: 'devices',
  hints: () => ({}),
  allocate: (_ctx, container) => ({ ok: true, assignment: container.name === 'app' ? { devices: { 'example.com/resource': ['Dev-1'] } } : {} }),
};

describe('admitResources', () => {
  it('asks every provider for every container, init containers first, and merges their shares', () => {
    const asked: string[] = [];
    const recording: ResourceProvider = { name: 'rec', hints: () => ({}), allocate: (_c, container) => { asked.push(container.name); return { ok: true, assignment: {} }; } };
    const result = admitResources({ pod: pod('p', ['init'], ['app']), inventory: EMPTY_INVENTORY, assignments: {} }, [recording, lowestFree, devices]);
    expect(asked).toEqual(['init', 'app']);
    expect(result).toEqual({ admit: true, assignment: { init: { cpus: [0] }, app: { cpus: [0], devices: { 'example.com/resource': ['Dev-1'] } } } });
  });

  it('keeps CPUs other pods hold away from this one', () => {
    const result = admitResources({ pod: pod('p', [], ['a', 'b']), inventory: EMPTY_INVENTORY, assignments: { other: { x: { cpus: [0, 1] } } } }, [lowestFree]);
    expect(result).toEqual({ admit: true, assignment: { a: { cpus: [2] }, b: { cpus: [3] } } });
  });

  it('hands a pod re-added after a restart the share it already had', () => {
    const result = admitResources({ pod: pod('p', [], ['a']), inventory: EMPTY_INVENTORY, assignments: { p: { a: { cpus: [5] } } } }, [lowestFree]);
    expect(result).toEqual({ admit: true, assignment: { a: { cpus: [5] } } });
  });

  it("refuses the pod with Go's admission message when a provider refuses one container", () => {
    const result = admitResources({ pod: pod('p', [], ['a', 'greedy']), inventory: EMPTY_INVENTORY, assignments: {} }, [lowestFree]);
    expect(result).toEqual({ admit: false, reason: 'UnexpectedAdmissionError', message: 'Allocate failed due to not enough cpus available to satisfy request, which is unexpected' });
  });

  it('asks for no hints under the none topology policy', () => {
    let hinted = 0;
    const hinting: ResourceProvider = { name: 'h', hints: () => { hinted++; return {}; }, allocate: () => ({ ok: true, assignment: {} }) };
    admitResources({ pod: pod('p', [], ['a']), inventory: EMPTY_INVENTORY, assignments: {} }, [hinting]);
    expect(hinted).toBe(0);
    admitResources({ pod: pod('p', [], ['a', 'b']), inventory: { ...EMPTY_INVENTORY, topology: { policy: 'best-effort', scope: 'container', options: {} } }, assignments: {} }, [hinting]);
    expect(hinted).toBe(2);
  });
});
