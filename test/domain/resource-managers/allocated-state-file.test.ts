import { describe, expect, it } from 'vitest';
import { decodeAllocatedPods, encodeAllocatedPods } from '../../../src/domain/resource-managers/allocated-state-file.js';

describe('allocated_pods_state', () => {
  const pods = { 'uid-b': { main: { requests: { memory: '128Mi', cpu: '200m' }, limits: { cpu: '400m' } } }, 'uid-a': { side: {} } };

  it('round-trips, keys sorted as Go writes them', () => {
    const text = encodeAllocatedPods(pods);
    expect(decodeAllocatedPods(text)).toEqual(pods);
    const data = (JSON.parse(text) as { data: string }).data;
    expect(data).toBe('{"entries":{"uid-a":{"ContainerResources":{"side":{}},"PodLevelResources":null},"uid-b":{"ContainerResources":{"main":{"limits":{"cpu":"400m"},"requests":{"cpu":"200m","memory":"128Mi"}}},"PodLevelResources":null}}}');
  });

  it('verifies the checksum, and names what is wrong', () => {
    const text = encodeAllocatedPods(pods);
    const tampered = text.replace('400m', '500m');
    expect(() => decodeAllocatedPods(tampered)).toThrow(/checksum does not match/);
    expect(() => decodeAllocatedPods('nope')).toThrow(/not JSON/);
    expect(() => decodeAllocatedPods('{"data":1}')).toThrow(/expected/);
  });

  it('reads an empty checkpoint as no allocations', () => {
    expect(decodeAllocatedPods(encodeAllocatedPods({}))).toEqual({});
  });
});
