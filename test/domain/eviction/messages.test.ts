import { describe, expect, it } from 'vitest';
import { evictionMessage, nodeConditionMessage, thresholdMetMessage } from '../../../src/domain/eviction/messages.js';
import type { Threshold } from '../../../src/domain/eviction/thresholds.js';
import { candidate, hardMemory, Mi, observed, usingMemory } from './fixtures.js';

describe('evictionMessage', () => {
  it('writes Go message for a container using more memory than it requests', () => {
    const pod = usingMemory('p', 20 * Mi);
    const { message, annotations } = evictionMessage('memory', pod, [hardMemory(100 * Mi)], { 'memory.available': observed(50 * Mi, 1000 * Mi) });
    expect(message).toBe('The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container c was using 20Mi, request is 0, has larger consumption of memory. ');
    expect(annotations).toEqual({ offending_containers: 'c', offending_containers_usage: '20Mi', starved_resource: 'memory' });
  });

  it('prints a percentage threshold as its quantity of the capacity and names no container within its request', () => {
    const t: Threshold = { signal: 'memory.available', kind: 'hard', value: { percentage: 0.5 }, gracePeriodMs: 0 };
    const pod = usingMemory('p', 20 * Mi, { containerRequests: [{ name: 'c', memory: '64Mi' }] });
    const { message } = evictionMessage('memory', pod, [t], { 'memory.available': observed(1000, 4 * Mi) });
    expect(message).toBe('The node was low on resource: memory. Threshold quantity: 2Mi, available: 1000. ');
  });

  it('writes only the node part for a pod without stats', () => {
    expect(evictionMessage('memory', candidate('p', { usage: undefined }), [], {}).message).toBe('The node was low on resource: memory. ');
  });

  it('prints decimal thresholds in DecimalSI', () => {
    const t: Threshold = { signal: 'memory.available', kind: 'hard', value: { quantity: 1e9, text: '1000M' }, gracePeriodMs: 0 };
    expect(evictionMessage('memory', candidate('p', { usage: undefined }), [t], { 'memory.available': observed(1024, 2e9) }).message)
      .toBe('The node was low on resource: memory. Threshold quantity: 1G, available: 1Ki. ');
  });
});

describe('node messages', () => {
  it('names the conditions and the resource as Go does', () => {
    expect(nodeConditionMessage(['MemoryPressure'])).toBe('The node had condition: [MemoryPressure]. ');
    expect(nodeConditionMessage(['MemoryPressure', 'DiskPressure'])).toBe('The node had condition: [MemoryPressure DiskPressure]. ');
    expect(thresholdMetMessage('ephemeral-storage')).toBe('Attempting to reclaim ephemeral-storage');
  });
});
