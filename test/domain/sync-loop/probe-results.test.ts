import { describe, expect, it } from 'vitest';
import { decideProbeResult } from '../../../src/domain/sync-loop/probe-results.js';
import { state } from './fixtures.js';

/** A pod whose container `main` has startup, liveness and readiness workers running. */
const probedStarts = { 'main:startup': 1000, 'main:liveness': 1000, 'main:readiness': 1000 };
const change = { podUid: 'a', container: 'main', containerId: 'c1' } as const;

describe('decideProbeResult', () => {
  it("lifts the startup gate of the container's liveness and readiness workers when its startup probe succeeds", () => {
    const { commands } = decideProbeResult(state({ a: { lifecycle: 'active', probedStarts } }), { ...change, probe: 'startup', result: 'success', observedAtMs: 5 });
    expect(commands).toEqual([
      { kind: 'tellWorker', podUid: 'a', message: { type: 'probe.result.changed', container: 'main', probe: 'startup', result: 'success', observedAtMs: 5 } },
      { kind: 'tellProbe', id: 'probe:a:main:liveness', message: { type: 'probe.startup.succeeded', containerId: 'c1' } },
      { kind: 'tellProbe', id: 'probe:a:main:readiness', message: { type: 'probe.startup.succeeded', containerId: 'c1' } },
    ]);
  });

  it('tells only the workers the container has', () => {
    const { commands } = decideProbeResult(state({ a: { lifecycle: 'active', probedStarts: { 'main:startup': 1000, 'main:liveness': 1000, 'side:readiness': 1000 } } }), { ...change, probe: 'startup', result: 'success' });
    expect(commands.filter((c) => c.kind === 'tellProbe').map((c) => c.kind === 'tellProbe' && c.id)).toEqual(['probe:a:main:liveness']);
  });

  it('lifts no gate for a startup failure or any other probe', () => {
    const s = state({ a: { lifecycle: 'active', probedStarts } });
    expect(decideProbeResult(s, { ...change, probe: 'startup', result: 'failure' }).commands.map((c) => c.kind)).toEqual(['tellWorker']);
    expect(decideProbeResult(s, { ...change, probe: 'readiness', result: 'success' }).commands.map((c) => c.kind)).toEqual(['tellWorker']);
  });

  it('keeps telling the worker of a pod that is terminating, so readiness turns false while it shuts down', () => {
    const { commands } = decideProbeResult(state({ a: { lifecycle: 'terminating', probedStarts } }), { ...change, probe: 'readiness', result: 'failure' });
    expect(commands).toEqual([{ kind: 'tellWorker', podUid: 'a', message: { type: 'probe.result.changed', container: 'main', probe: 'readiness', result: 'failure' } }]);
  });

  it('drops the results for a pod whose worker is done or that is unknown', () => {
    expect(decideProbeResult(state({ a: { lifecycle: 'terminated' } }), { ...change, probe: 'readiness', result: 'failure' }).commands).toEqual([]);
    expect(decideProbeResult(state(), { ...change, probe: 'readiness', result: 'failure' }).commands).toEqual([]);
  });
});
