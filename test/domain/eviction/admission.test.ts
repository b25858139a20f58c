import { describe, expect, it } from 'vitest';
import { admitUnderPressure } from '../../../src/domain/eviction/admission.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const bestEffort: Pod = { metadata: { name: 'be', uid: 'u1' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const burstable: Pod = { metadata: { name: 'b', uid: 'u2' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { memory: '1Mi' } } }] } };
const critical: Pod = { ...bestEffort, spec: { ...bestEffort.spec, priority: 2_000_001_000 } };
const tolerant: Pod = { ...bestEffort, spec: { ...bestEffort.spec, tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] } };
const refused = (message: string) => ({ admit: false, reason: 'Evicted', message });

describe('admitUnderPressure', () => {
  it.each([
    ['a BestEffort pod under no pressure', bestEffort, [], { admit: true }],
    ['a BestEffort pod under memory pressure', bestEffort, ['MemoryPressure'], refused('The node had condition: [MemoryPressure]. ')],
    ['a Burstable pod under memory pressure', burstable, ['MemoryPressure'], { admit: true }],
    ['a BestEffort pod tolerating the memory-pressure taint', tolerant, ['MemoryPressure'], { admit: true }],
    ['a Burstable pod under disk pressure', burstable, ['DiskPressure'], refused('The node had condition: [DiskPressure]. ')],
    ['a tolerant pod under memory and pid pressure', tolerant, ['MemoryPressure', 'PIDPressure'], refused('The node had condition: [MemoryPressure PIDPressure]. ')],
    ['a critical pod under disk pressure', critical, ['DiskPressure'], { admit: true }],
  ] as const)('decides %s as Go does', (_name, pod, conditions, want) => {
    expect(admitUnderPressure(pod, conditions)).toEqual(want);
  });
});
