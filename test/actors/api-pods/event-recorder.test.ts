import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createApiEventRecorder, createLogEventRecorder, EVENT_QUEUE_LENGTH } from '../../../src/actors/api-pods/event-recorder.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { EventApi, KubeObject } from '../../../src/ports/apiserver.js';

const logger = pino({ level: 'silent' });
const request = { object: { kind: 'Pod', namespace: 'ns', name: 'web', uid: 'u1' }, type: 'Normal' as const, reason: 'Started', message: 'Started container c' };

/** Events kept by namespace/name; one failure can be injected per call kind. */
class FakeEventApi implements EventApi {
  readonly stored = new Map<string, KubeObject>();
  readonly calls: string[] = [];
  failCreate?: KubeletError;
  failPatch?: KubeletError;
  async createEvent(namespace: string, event: KubeObject): Promise<KubeObject> {
    this.calls.push(`create ${namespace}/${event.metadata.name}`);
    if (this.failCreate) throw this.failCreate;
    const stored = { ...event, metadata: { ...event.metadata, resourceVersion: '1' } };
    this.stored.set(`${namespace}/${event.metadata.name}`, stored);
    return stored;
  }
  async patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject> {
    this.calls.push(`patch ${namespace}/${name}`);
    const failure = this.failPatch;
    this.failPatch = undefined;
    if (failure) throw failure;
    const existing = this.stored.get(`${namespace}/${name}`);
    if (!existing) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    const updated = { ...existing, ...patch };
    this.stored.set(`${namespace}/${name}`, updated);
    return updated;
  }
}

describe('createApiEventRecorder', () => {
  it('posts an event, then aggregates repeats into count and lastTimestamp', async () => {
    const api = new FakeEventApi();
    const clock = new SimulatedClock();
    const recorder = createApiEventRecorder({ events: api, clock, logger, host: 'node-a' });
    recorder.recordEvent(request);
    await recorder.flush();
    clock.increment(3_000);
    recorder.recordEvent(request);
    recorder.recordEvent(request);
    await recorder.flush();
    expect(api.calls.map((c) => c.split(' ')[0])).toEqual(['create', 'patch', 'patch']);
    const [event] = [...api.stored.values()];
    expect(event).toMatchObject({ count: 3, lastTimestamp: '1970-01-01T00:00:03Z', firstTimestamp: '1970-01-01T00:00:00Z', source: { component: 'kubelet', host: 'node-a' } });
  });

  it('posts a new event when the aggregated one is gone from the API server', async () => {
    const api = new FakeEventApi();
    const recorder = createApiEventRecorder({ events: api, clock: new SimulatedClock(), logger, host: 'node-a' });
    recorder.recordEvent(request);
    await recorder.flush();
    api.stored.clear();
    recorder.recordEvent(request);
    await recorder.flush();
    expect(api.calls.map((c) => c.split(' ')[0])).toEqual(['create', 'patch', 'create']);
    expect(api.stored.size).toBe(1);
  });

  it('logs and goes on when posting fails', async () => {
    const api = new FakeEventApi();
    const recorder = createApiEventRecorder({ events: api, clock: new SimulatedClock(), logger, host: 'node-a' });
    api.failCreate = new KubeletError('KLT_ERR_API_UNAVAILABLE', 'refused');
    recorder.recordEvent(request);
    await recorder.flush();
    api.failCreate = undefined;
    recorder.recordEvent({ ...request, reason: 'Killing' });
    await recorder.flush();
    expect(api.stored.size).toBe(1);
  });

  it('drops events beyond the queue length instead of blocking', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const posted: string[] = [];
    const api: EventApi = {
      createEvent: async (_ns, event) => {
        await gate;
        posted.push(event.metadata.name ?? '');
        return event;
      },
      patchEvent: async () => {
        throw new Error('unused');
      },
    };
    const recorder = createApiEventRecorder({ events: api, clock: new SimulatedClock(), logger, host: 'node-a' });
    // One object each, so the spam filter (25 per object) lets them all through to the queue.
    for (let i = 0; i < EVENT_QUEUE_LENGTH + 10; i++) recorder.recordEvent({ ...request, object: { ...request.object, name: `web-${i}` } });
    release();
    await recorder.flush();
    // The first is taken off the queue at once, so the queue holds EVENT_QUEUE_LENGTH more.
    expect(posted).toHaveLength(EVENT_QUEUE_LENGTH + 1);
  });
});

describe('createLogEventRecorder', () => {
  it('writes events to the log only', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const recorder = createLogEventRecorder(pino({ level: 'debug' }, sink));
    recorder.recordEvent(request);
    await recorder.flush();
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({ msg: 'Event occurred', reason: 'Started', eventType: 'Normal', object: request.object });
  });
});

describe('createApiEventRecorder: the EventCorrelator', () => {
  it('drops what one object records beyond the spam burst, and combines similar events into one', async () => {
    const api = new FakeEventApi();
    const recorder = createApiEventRecorder({ events: api, clock: new SimulatedClock(), logger, host: 'node-a' });
    for (let i = 0; i < 30; i++) recorder.recordEvent({ ...request, type: 'Warning', reason: 'Unhealthy', message: `Liveness probe failed: ${i}` });
    await recorder.flush();
    // 25 pass the spam filter: 9 events of their own, then one combined event patched 15 times.
    expect(api.calls.filter((c) => c.startsWith('create'))).toHaveLength(10);
    expect(api.calls.filter((c) => c.startsWith('patch'))).toHaveLength(15);
    const combined = [...api.stored.values()].find((e) => String((e as { message?: string }).message).startsWith('(combined'));
    expect(combined).toMatchObject({ count: 16, message: '(combined from similar events): Liveness probe failed: 24' });
  });
});
