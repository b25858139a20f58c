import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, setup, type AnyEventObject } from 'xstate';
import {
  API_SOURCE_BACKOFF_INITIAL_MS,
  VERY_SHORT_WATCH_MS,
  createApiPodSourceActor,
  runApiPodSource,
  type ApiPodSourceEvent,
} from '../../../src/actors/api-pods/api-pod-source.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { KubeObject, PodList, WatchEventType } from '../../../src/ports/apiserver.js';
import { settle } from '../../support/settle.js';

const logger = pino({ level: 'silent' });
const flush = () => settle(5);

const pod = (uid: string, rv: string, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: `pod-${uid}`, namespace: 'ns', uid, resourceVersion: rv, ...extra },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox:1.36' }] },
});

interface FakeWatch {
  resourceVersion: string;
  onEvent: (type: WatchEventType, object: KubeObject) => void;
  onDone: (err: unknown) => void;
  stopped: boolean;
}

/** A fake API: lists answer from `lists` (or throw what is queued), watches are recorded for the test to drive. */
function fakeApi() {
  const lists: (PodList | Error)[] = [];
  const watches: FakeWatch[] = [];
  const watchFailures: Error[] = [];
  const listCalls: { nodeName: string }[] = [];
  return {
    lists,
    watches,
    watchFailures,
    listCalls,
    listPods: async (opts: { nodeName: string }) => {
      listCalls.push(opts);
      const next = lists.length > 1 ? lists.shift()! : lists[0];
      if (!next) throw new Error('no list scripted');
      if (next instanceof Error) throw next;
      return structuredClone(next);
    },
    watchPods: async (opts: { nodeName: string; resourceVersion: string; onEvent: FakeWatch['onEvent']; onDone: FakeWatch['onDone'] }) => {
      const failure = watchFailures.shift();
      if (failure) throw failure;
      const w: FakeWatch = { resourceVersion: opts.resourceVersion, onEvent: opts.onEvent, onDone: opts.onDone, stopped: false };
      watches.push(w);
      return { stop: () => { w.stopped = true; } };
    },
    last(): FakeWatch {
      const w = watches[watches.length - 1];
      if (!w) throw new Error('no watch');
      return w;
    },
  };
}

function start(api: ReturnType<typeof fakeApi>) {
  const clock = new SimulatedClock();
  const events: ApiPodSourceEvent[] = [];
  const stop = runApiPodSource({ nodeName: 'node-a', listPods: api.listPods, watchPods: api.watchPods, clock, logger, sendBack: (e) => events.push(e) });
  const snapshots = () => events.filter((e) => e.type === 'pod.source.snapshot');
  const lastUids = () => {
    const s = snapshots();
    return (s[s.length - 1]?.pods ?? []).map((p) => p.metadata.uid);
  };
  return { clock, events, stop, snapshots, lastUids };
}

const gone = () => new KubeletError('KLT_ERR_API_GONE', 'too old resource version');
const refused = () => new KubeletError('KLT_ERR_API_UNAVAILABLE', 'connect ECONNREFUSED', { retryable: true });

describe('runApiPodSource', () => {
  it('lists this node\'s pods, sends them as an api snapshot and watches from the list\'s resourceVersion', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5')] });
    const s = start(api);
    await flush();
    expect(api.listCalls).toEqual([{ nodeName: 'node-a' }]);
    expect(s.snapshots()).toHaveLength(1);
    expect(s.snapshots()[0]).toMatchObject({ source: 'api', rejected: [], observedAtMs: 0 });
    expect(s.lastUids()).toEqual(['a']);
    expect(api.last().resourceVersion).toBe('10');
    s.stop();
    expect(api.last().stopped).toBe(true);
  });

  it('keeps the API pod\'s uid and fills only missing defaults', async () => {
    const api = fakeApi();
    const withPolicy = pod('a', '5');
    (withPolicy['spec'] as { restartPolicy?: string }).restartPolicy = 'Never';
    api.lists.push({ resourceVersion: '10', items: [withPolicy] });
    const s = start(api);
    await flush();
    const sent = s.snapshots()[0]!.pods[0]!;
    expect(sent.metadata.uid).toBe('a');
    expect(sent.spec.restartPolicy).toBe('Never');
    expect(sent.spec.terminationGracePeriodSeconds).toBe(30);
    expect(sent.spec.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    s.stop();
  });

  it('applies added, modified and deleted events to the snapshot', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5')] });
    const s = start(api);
    await flush();
    api.last().onEvent('ADDED', pod('b', '11'));
    expect(s.lastUids()).toEqual(['a', 'b']);
    api.last().onEvent('MODIFIED', pod('a', '12', { labels: { x: 'y' } }));
    expect(s.snapshots()[2]!.pods[0]!.metadata.labels).toEqual({ x: 'y' });
    api.last().onEvent('DELETED', pod('a', '13'));
    expect(s.lastUids()).toEqual(['b']);
    s.stop();
  });

  it('sends an unchanged pod as the same object in every snapshot, a changed one as a new object', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5'), pod('b', '6')] });
    const s = start(api);
    await flush();
    api.last().onEvent('MODIFIED', pod('a', '12', { labels: { x: 'y' } }));
    const [first, second] = s.snapshots().map((e) => e.pods);
    expect(second![1]).toBe(first![1]); // b: unchanged, so the pod config compares it by identity
    expect(second![0]).not.toBe(first![0]);
    expect(second![0]!.metadata.labels).toEqual({ x: 'y' });
    s.stop();
  });

  /** A source listing pod a and the mirror pod m, started and flushed. */
  async function startWithMirrorPod() {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5'), pod('m', '6', { annotations: { 'kubernetes.io/config.mirror': 'hash' } })] });
    const s = start(api);
    await flush();
    return { api, s };
  }

  it('splits mirror pods off the snapshot and reports them for the status manager', async () => {
    const { s } = await startWithMirrorPod();
    expect(s.lastUids()).toEqual(['a']);
    const mirrors = s.events.filter((e) => e.type === 'api.mirrorPods.observed');
    expect(mirrors[0]!.pods.map((p) => p.metadata.uid)).toEqual(['m']);
    s.stop();
  });

  it('reports the mirror pods again only when one of them changed, came or went', async () => {
    const { api, s } = await startWithMirrorPod();
    const mirrorUids = () => s.events.filter((e) => e.type === 'api.mirrorPods.observed').map((e) => e.pods.map((p) => p.metadata.uid));
    api.last().onEvent('MODIFIED', pod('a', '11', { labels: { x: 'y' } }));
    api.last().onEvent('ADDED', pod('b', '12'));
    expect(s.snapshots()).toHaveLength(3); // every watch event still sends the pods to run
    expect(mirrorUids()).toEqual([['m']]);
    api.last().onEvent('MODIFIED', pod('m', '13', { annotations: { 'kubernetes.io/config.mirror': 'hash' }, labels: { x: 'y' } }));
    api.last().onEvent('ADDED', pod('n', '14', { annotations: { 'kubernetes.io/config.mirror': 'hash' } }));
    api.last().onEvent('DELETED', pod('m', '15'));
    api.last().onEvent('DELETED', pod('n', '16'));
    api.last().onEvent('MODIFIED', pod('b', '17', { labels: { x: 'z' } }));
    expect(mirrorUids()).toEqual([['m'], ['m'], ['m', 'n'], ['n'], []]);
    s.stop();
  });

  it('resumes a watch that ended cleanly from the last resourceVersion, bookmarks included', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [] });
    const s = start(api);
    await flush();
    api.last().onEvent('ADDED', pod('a', '11'));
    api.last().onEvent('BOOKMARK', { metadata: { resourceVersion: '20' } });
    const snapshotsBefore = s.snapshots().length;
    api.last().onDone(null);
    await flush();
    expect(api.watches).toHaveLength(2);
    expect(api.last().resourceVersion).toBe('20');
    expect(api.listCalls).toHaveLength(1);
    expect(s.snapshots()).toHaveLength(snapshotsBefore); // a bookmark changes no pod
    s.stop();
  });

  it('lists again on 410 Gone, from a watch ERROR event or from the watch\'s end', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5')] }, { resourceVersion: '30', items: [pod('b', '25')] }, { resourceVersion: '40', items: [] });
    const s = start(api);
    await flush();
    api.last().onEvent('ERROR', { metadata: {}, code: 410, reason: 'Expired' } as KubeObject);
    api.last().onDone(null);
    await flush();
    expect(api.listCalls).toHaveLength(2);
    expect(s.lastUids()).toEqual(['b']);
    expect(api.last().resourceVersion).toBe('30');
    api.last().onDone(gone());
    await flush();
    expect(api.listCalls).toHaveLength(3);
    expect(s.lastUids()).toEqual([]);
    s.stop();
  });

  it('keeps the last pods through an outage and retries with a doubling back-off', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5')] });
    const s = start(api);
    await flush();
    api.watchFailures.push(refused(), refused());
    api.last().onDone(refused());
    await flush();
    expect(api.watches).toHaveLength(1);
    s.clock.increment(API_SOURCE_BACKOFF_INITIAL_MS - 1);
    await flush();
    expect(api.watches).toHaveLength(1);
    s.clock.increment(1); // first retry (800 ms): refused
    await flush();
    s.clock.increment(2 * API_SOURCE_BACKOFF_INITIAL_MS - 1);
    await flush();
    expect(api.watches).toHaveLength(1);
    s.clock.increment(1); // second retry (1.6 s): refused
    await flush();
    s.clock.increment(4 * API_SOURCE_BACKOFF_INITIAL_MS); // third retry: the server is back
    await flush();
    expect(api.watches).toHaveLength(2);
    expect(api.last().resourceVersion).toBe('10');
    expect(s.lastUids()).toEqual(['a']); // nothing was taken away meanwhile
    expect(s.snapshots()).toHaveLength(1);
    // A pod created during the outage comes with the resumed watch.
    api.last().onEvent('ADDED', pod('b', '15'));
    expect(s.lastUids()).toEqual(['a', 'b']);
    s.stop();
  });

  it('retries a failed first list after the back-off and sends nothing until it works', async () => {
    const api = fakeApi();
    api.lists.push(refused(), { resourceVersion: '10', items: [pod('a', '5')] });
    const s = start(api);
    await flush();
    expect(s.snapshots()).toHaveLength(0);
    s.clock.increment(API_SOURCE_BACKOFF_INITIAL_MS);
    await flush();
    expect(api.listCalls).toHaveLength(2);
    expect(s.lastUids()).toEqual(['a']);
    s.stop();
  });

  it('relists when a resumed watch is refused with 410', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [] });
    const s = start(api);
    await flush();
    api.watchFailures.push(gone());
    s.clock.increment(VERY_SHORT_WATCH_MS);
    api.last().onDone(null);
    await flush();
    expect(api.listCalls).toHaveLength(2);
    s.stop();
  });

  it('backs off after a watch that closed at once without events, or reported an ERROR', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [] });
    const s = start(api);
    await flush();
    api.last().onDone(null); // closed at once, nothing received: Go's "very short watch"
    await flush();
    expect(api.watches).toHaveLength(1);
    s.clock.increment(API_SOURCE_BACKOFF_INITIAL_MS);
    await flush();
    expect(api.watches).toHaveLength(2);
    s.clock.increment(VERY_SHORT_WATCH_MS);
    api.last().onEvent('ERROR', { metadata: {}, code: 500, reason: 'InternalError' } as KubeObject);
    api.last().onDone(null);
    await flush();
    expect(api.watches).toHaveLength(2);
    s.clock.increment(2 * API_SOURCE_BACKOFF_INITIAL_MS);
    await flush();
    expect(api.watches).toHaveLength(3);
    expect(api.listCalls).toHaveLength(1);
    s.stop();
  });

  it('ignores events of a watch it has stopped', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [] });
    const s = start(api);
    await flush();
    const old = api.last();
    s.stop();
    old.onEvent('ADDED', pod('a', '11'));
    old.onDone(null);
    await flush();
    expect(s.snapshots()).toHaveLength(1);
    expect(api.watches).toHaveLength(1);
  });

  it('refuses a pod whose UID is not one safe path segment, reports it by namespace/name and logs it once; the others run', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '10', items: [pod('a', '5'), pod('../../../victim-uid', '6'), pod('x/y', '7')] });
    const warnings: unknown[] = [];
    const clock = new SimulatedClock();
    const events: ApiPodSourceEvent[] = [];
    const spy = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const stop = runApiPodSource({ nodeName: 'node-a', listPods: api.listPods, watchPods: api.watchPods, clock, logger: spy, sendBack: (e) => events.push(e) });
    await flush();
    api.last().onEvent('MODIFIED', pod('a', '8', { labels: { v: '2' } }));
    await flush();
    const snapshots = events.filter((e) => e.type === 'pod.source.snapshot');
    expect(snapshots).toHaveLength(2);
    for (const snapshot of snapshots) {
      expect(snapshot.pods.map((p) => p.metadata.uid)).toEqual(['a']);
      expect(snapshot.rejected).toEqual([
        { origin: 'ns/pod-../../../victim-uid', reason: expect.stringMatching(/^metadata\.uid: Invalid value: "\.\.\/\.\.\/\.\.\/victim-uid": must be a single path segment/) },
        { origin: 'ns/pod-x/y', reason: expect.stringContaining('metadata.uid: Invalid value: "x/y"') },
      ]);
    }
    expect(warnings.filter((w) => (w as { msg: string }).msg === 'Refusing API pods whose UID is not a safe path segment')).toHaveLength(1);
    stop();
  });
});

describe('createApiPodSourceActor', () => {
  it('sends its snapshots to the parent that invokes it with the node name', async () => {
    const api = fakeApi();
    api.lists.push({ resourceVersion: '1', items: [pod('a', '1')] });
    const received: AnyEventObject[] = [];
    const parent = setup({ actors: { apiSource: createApiPodSourceActor({ listPods: api.listPods, watchPods: api.watchPods, clock: new SimulatedClock(), logger }) } })
      .createMachine({
        invoke: { src: 'apiSource', input: { nodeName: 'node-a' } },
        on: { '*': { actions: ({ event }) => received.push(event) } },
      });
    const actor = createActor(parent).start();
    await flush();
    expect(api.listCalls).toEqual([{ nodeName: 'node-a' }]);
    expect(received.map((e) => e.type)).toEqual(['pod.source.snapshot', 'api.mirrorPods.observed']);
    actor.stop();
    expect(api.last().stopped).toBe(true);
  });
});
