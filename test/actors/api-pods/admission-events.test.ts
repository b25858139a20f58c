import { describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { relayAdmissionRejections } from '../../../src/actors/api-pods/admission-events.js';
import type { EventRecorder } from '../../../src/ports/event-recorder.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { syncLoopMachine } from '../../../src/machines/sync-loop.machine.js';
import { inertDeletors, noPodSources } from '../../support/sync-loop-fixtures.js';

const idle = fromCallback(() => {});

describe('relayAdmissionRejections', () => {
  it('records a Warning event on the pod for each pod the syncLoop refuses, once the recorder exists', () => {
    const recorded: EventRequest[] = [];
    const live: { events?: EventRecorder } = {};
    const loop = createActor(syncLoopMachine.provide({ actors: { podConfig: idle as never, pleg: idle as never, podWorker: idle as never, probe: idle as never, ...inertDeletors } }), {
      input: {
        nodeName: 'node-a', hostIP: '10.0.0.1', podConfig: noPodSources, podWorker: {}, pleg: {}, deadContainersKept: 1,
        node: { name: 'node-a', operatingSystem: 'linux', labels: {}, taints: [], allocatable: { cpuMillis: 1000, memoryBytes: 1, ephemeralStorageBytes: 1, pods: 10 } },
      },
    });
    relayAdmissionRejections(loop, () => live.events);
    loop.start();
    const big = (uid: string): Pod => ({ metadata: { name: `big-${uid}`, namespace: 'ns', uid }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '2' } } }] } });

    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [big('u0')] });
    expect(recorded).toEqual([]); // no recorder yet: nothing to record with, and nothing thrown

    live.events = { recordEvent: (r) => void recorded.push(r), flush: async () => undefined };
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [big('u1')] });
    expect(recorded).toEqual([{
      object: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'big-u1', uid: 'u1' },
      type: 'Warning',
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 2000, used: 0, capacity: 1000",
    }]);
    loop.stop();
  });
});
