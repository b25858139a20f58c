import { describe, expect, it } from 'vitest';
import type { NodeCondition } from '../../../src/domain/node-status/api-objects.js';
import { conditionEventReasons, nodeConditions, type NodeHealth } from '../../../src/domain/node-status/node-conditions.js';

const ok: NodeHealth = { runtime: { runtimeReady: true, networkReady: true }, pleg: { healthy: true } };

describe('nodeConditions', () => {
  it.each<[string, NodeHealth, string, string]>([
    ['all healthy', ok, 'True', 'kubelet is posting ready status'],
    ['no runtime answer yet', { runtime: null, pleg: null }, 'False', '[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]'],
    ['no relist yet', { runtime: { runtimeReady: true, networkReady: true }, pleg: null }, 'False', 'PLEG is not healthy: pleg has yet to be successful'],
    ['runtime down', { runtime: { runtimeReady: false, networkReady: false }, pleg: { healthy: true } }, 'False', 'container runtime is down'],
    ['network not ready', { runtime: { runtimeReady: true, networkReady: false, message: 'NetworkReady=false reason:NetworkPluginNotReady message:cni' }, pleg: { healthy: true } }, 'False', 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni'],
    ['network and PLEG', { runtime: { runtimeReady: true, networkReady: false }, pleg: { healthy: false, message: 'x' } }, 'False', '[container runtime network not ready: NetworkReady=false, PLEG is not healthy: x]'],
    ['the node shuts down', { ...ok, shuttingDown: true }, 'False', 'node is shutting down'],
    ['PLEG unhealthy while the node shuts down', { ...ok, pleg: { healthy: false, message: 'x' }, shuttingDown: true }, 'False', '[PLEG is not healthy: x, node is shutting down]'],
  ])('Ready when %s', (_name, health, status, message) => {
    const ready = nodeConditions([], health, 0).find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status, message, reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady' });
  });

  it('lists the pressure conditions False with Go reasons, then Ready', () => {
    const c = nodeConditions([], ok, 0);
    expect(c.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
      ['Ready', 'True', 'KubeletReady'],
    ]);
  });

  it('reports the eviction manager pressure True with Go reasons and messages (#18)', () => {
    const c = nodeConditions([], { ...ok, pressure: ['MemoryPressure', 'PIDPressure'] }, 0);
    expect(c.slice(0, 3).map((x) => [x.type, x.status, x.reason, x.message])).toEqual([
      ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'True', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available'],
    ]);
    expect(conditionEventReasons(nodeConditions([], ok, 0), c)).toEqual(['NodeHasInsufficientMemory', 'NodeHasInsufficientPID']);
  });

  it('moves lastTransitionTime only when the status flips; the heartbeat every time', () => {
    const first = nodeConditions([], ok, 1_000);
    const same = nodeConditions(first, ok, 11_500);
    expect(same[3]).toMatchObject({ lastHeartbeatTime: '1970-01-01T00:00:11Z', lastTransitionTime: '1970-01-01T00:00:01Z' });
    const flipped = nodeConditions(same, { ...ok, pleg: { healthy: false } }, 21_000);
    expect(flipped[3]).toMatchObject({ status: 'False', lastTransitionTime: '1970-01-01T00:00:21Z' });
    expect(flipped[0]!.lastTransitionTime).toBe('1970-01-01T00:00:01Z');
  });

  it('keeps conditions owned by others after its own', () => {
    const other: NodeCondition = { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'm', lastHeartbeatTime: 'a', lastTransitionTime: 'b' };
    expect(nodeConditions([other], ok, 0).at(-1)).toEqual(other);
  });
});

describe('conditionEventReasons', () => {
  it('names every pressure condition of a new Node, but not its first Ready', () => {
    expect(conditionEventReasons([], nodeConditions([], ok, 0))).toEqual(['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID']);
  });
  it('names Ready flips only', () => {
    const before = nodeConditions([], { runtime: null, pleg: null }, 0);
    const after = nodeConditions(before, ok, 10_000);
    expect(conditionEventReasons(before, after)).toEqual(['NodeReady']);
    expect(conditionEventReasons(after, nodeConditions(after, ok, 20_000))).toEqual([]);
    expect(conditionEventReasons(after, nodeConditions(after, { ...ok, pleg: { healthy: false } }, 30_000))).toEqual(['NodeNotReady']);
  });
});
