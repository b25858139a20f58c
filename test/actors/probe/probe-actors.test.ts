import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createActor, setup, SimulatedClock, toPromise, waitFor } from 'xstate';
import { createProbeActors, forJournal, MAX_OUTCOME_OUTPUT_CHARS, PROBE_ATTEMPTS, runWithRetries } from '../../../src/actors/probe/probe-actors.js';
import { createProbers } from '../../../src/adapters/probers/index.js';
import { probeMachine } from '../../../src/machines/probe.machine.js';
import type { ProbeOutcome, ProbeTarget } from '../../../src/domain/probe/types.js';
import type { Probers } from '../../../src/ports/probers.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import { healthService, startGrpcServer, type SeenCheck, type StatusAnswer } from '../../support/grpc-health-server.js';
import { until } from '../../support/daemon.js';

/** Probers that record which kind ran and answer from a script per kind. */
function fakeProbers(answers: Partial<Record<keyof Probers, (ProbeOutcome | Error)[]>>) {
  const calls: string[] = [];
  const answer = (kind: keyof Probers) => async () => {
    calls.push(kind);
    const next = answers[kind]?.shift() ?? { result: 'success' as const };
    if (next instanceof Error) throw next;
    return next;
  };
  const probers: Probers = { exec: answer('exec'), httpGet: answer('httpGet'), tcpSocket: answer('tcpSocket'), grpc: answer('grpc') };
  return { calls, probers };
}

const targets: ProbeTarget[] = [
  { kind: 'exec', containerId: 'c', command: ['true'], timeoutSeconds: 1 },
  { kind: 'httpGet', url: 'http://127.0.0.1:1/', headers: {}, timeoutSeconds: 1 },
  { kind: 'tcpSocket', host: '127.0.0.1', port: 1, timeoutSeconds: 1 },
  { kind: 'grpc', host: '127.0.0.1', port: 1, service: '', timeoutSeconds: 1 },
];

describe('createProbeActors', () => {
  it('records Go\'s Unhealthy event for an attempt that fails or errors, and none for a success', async () => {
    const recorded: EventRequest[] = [];
    const events = { recordEvent: (e: EventRequest) => void recorded.push(e), flush: async () => undefined };
    const containerRef = { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'web', uid: 'u1', fieldPath: 'spec.containers{app}' };
    const { probers } = fakeProbers({ exec: [{ result: 'failure', output: 'cat: /tmp/health: No such file or directory\n' }, { result: 'success' }] });
    const actors = createProbeActors({ probers, events: () => events });
    const run = (probe: 'liveness' | 'readiness') => toPromise(createActor(actors.runProbe, { input: { probe, target: targets[0]!, containerRef } }).start());
    await run('liveness');
    await run('readiness');
    expect(recorded).toEqual([{ object: containerRef, type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe failed: cat: /tmp/health: No such file or directory\n' }]);
  });

  it('stamps each outcome with the time the attempt ended, on the injected clock', async () => {
    const { probers } = fakeProbers({ exec: [{ result: 'success' }] });
    const clock = new SimulatedClock();
    clock.set(42_000);
    const actor = createActor(createProbeActors({ probers, clock }).runProbe, { input: { probe: 'readiness', target: targets[0]! } }).start();
    expect(await toPromise(actor)).toEqual({ result: 'success', observedAtMs: 42_000 });
  });

  it.each(targets)('runs the $kind prober for a $kind target', async (target) => {
    const { calls, probers } = fakeProbers({ [target.kind]: [{ result: 'failure', output: 'no' }] });
    const actor = createActor(createProbeActors({ probers }).runProbe, { input: { probe: 'liveness', target } }).start();
    expect(await toPromise(actor)).toEqual({ result: 'failure', output: 'no' });
    expect(calls).toEqual([target.kind]);
  });
});

describe('forJournal', () => {
  it.each([
    [{ result: 'success', output: 'a big healthy body' }, { result: 'success' }],
    [{ result: 'success', warning: true, output: 'Probe terminated redirects' }, { result: 'success', warning: true, output: 'Probe terminated redirects' }],
    [{ result: 'failure', output: 'HTTP probe failed with statuscode: 500' }, { result: 'failure', output: 'HTTP probe failed with statuscode: 500' }],
    [{ result: 'unknown' }, { result: 'unknown' }],
  ] as [ProbeOutcome, ProbeOutcome][])('keeps %j as %j', (outcome, kept) => {
    expect(forJournal(outcome)).toEqual(kept);
  });

  it('cuts long outputs', () => {
    expect(forJournal({ result: 'failure', output: 'x'.repeat(5000) }).output).toHaveLength(MAX_OUTCOME_OUTPUT_CHARS);
  });
});

describe('runWithRetries', () => {
  it('tries an attempt that could not run again, three times in all', async () => {
    const { calls, probers } = fakeProbers({ tcpSocket: [{ result: 'unknown' }, new Error('boom'), { result: 'unknown', output: 'last' }] });
    expect(await runWithRetries(probers, targets[2] as ProbeTarget)).toEqual({ result: 'unknown', output: 'last' });
    expect(calls).toHaveLength(PROBE_ATTEMPTS);
  });

  it('stops retrying at the first verdict', async () => {
    const { calls, probers } = fakeProbers({ exec: [new Error('boom'), { result: 'failure' }] });
    expect(await runWithRetries(probers, targets[0] as ProbeTarget)).toEqual({ result: 'failure' });
    expect(calls).toEqual(['exec', 'exec']);
  });

  it('does not retry a failure', async () => {
    const { calls, probers } = fakeProbers({ httpGet: [{ result: 'failure' }] });
    await runWithRetries(probers, targets[1] as ProbeTarget);
    expect(calls).toEqual(['httpGet']);
  });

  it('answers unknown for an unresolvable target without running a prober', async () => {
    const { calls, probers } = fakeProbers({});
    expect(await runWithRetries(probers, { kind: 'unresolvable', reason: 'port x not found' })).toEqual({
      result: 'unknown',
      output: 'port x not found',
    });
    expect(calls).toEqual([]);
  });
});

/** A readiness worker (no parent pod worker) on the real probers; its result changes are collected. */
function startReadinessWorker(container: Record<string, unknown>) {
  const execSync = async () => ({ stdout: '', stderr: '', exitCode: 0 });
  const worker = probeMachine.provide({ actors: createProbeActors({ probers: createProbers({ execSync }) }) });
  const changes: unknown[] = [];
  const parent = createActor(
    setup({ actors: { worker } }).createMachine({
      invoke: {
        id: 'worker',
        src: 'worker',
        input: { podUid: 'u', podIP: '127.0.0.1', containerId: 'c', containerStartedAtMs: 0, probe: 'readiness', container: { name: 'web', image: 'i', ...container } },
      },
      on: { 'probe.result.changed': { actions: ({ event }) => changes.push(event) } },
    }),
  ).start();
  return { parent, changes };
}

const readinessChange = (result: string) => ({ type: 'probe.result.changed', podUid: 'u', container: 'web', containerId: 'c', probe: 'readiness', result });

describe('probe worker with the real probers', () => {
  it('flips readiness with a loopback gRPC health server going SERVING and back to NOT_SERVING', async () => {
    const statuses = new Map<string, StatusAnswer>([['', 'NOT_SERVING']]);
    const seen: SeenCheck[] = [];
    const server = await startGrpcServer(healthService(statuses, seen));
    const { parent, changes } = startReadinessWorker({ readinessProbe: { grpc: { port: server.port }, periodSeconds: 1, failureThreshold: 1 } });
    try {
      // Not ready from the start: NOT_SERVING answers (the first judged by the time the second is
      // asked) confirm it without a change.
      await until('a second health check', () => seen.length >= 2, 5000);
      expect(changes).toEqual([]);
      statuses.set('', 'SERVING');
      await waitFor(parent, () => changes.length === 1, { timeout: 5000 });
      statuses.set('', 'NOT_SERVING');
      await waitFor(parent, () => changes.length === 2, { timeout: 5000 });
      expect(changes).toEqual([
        readinessChange('success'),
        { ...readinessChange('failure'), output: 'service unhealthy (responded with "NOT_SERVING")' },
      ]);
    } finally {
      parent.stop();
      server.stop();
    }
  });

  it('flips readiness once a loopback HTTP endpoint starts answering 200', async () => {
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.writeHead(requests === 1 ? 503 : 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { parent, changes } = startReadinessWorker({ readinessProbe: { httpGet: { port, path: '/ready' }, periodSeconds: 1 } });
    try {
      await waitFor(parent, () => changes.length > 0, { timeout: 5000 });
      expect(requests).toBe(2);
      expect(changes).toEqual([readinessChange('success')]);
    } finally {
      parent.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
