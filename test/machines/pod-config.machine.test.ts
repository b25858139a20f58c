import { describe, expect, it } from 'vitest';
import { assign, createActor, fromCallback, setup, type AnyActorRef, type AnyEventObject, type SnapshotFrom, waitFor } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { PodSourceName } from '../../src/domain/pod-config/types.js';
import type { Pod } from '../../src/domain/pod/types.js';
import {
  POD_CONFIG_EFFECTS,
  podConfigMachine,
  type ApiSourceInput,
  type FileSourceInput,
  type HttpSourceInput,
  type PodConfigInput,
  type PodSourceEvent,
} from '../../src/machines/pod-config.machine.js';

const baseInput: PodConfigInput = {
  nodeName: 'node-1',
  staticPodPath: '/etc/kubernetes/manifests',
  fileCheckFrequencyMs: 20_000,
  staticPodURL: '',
  staticPodURLHeader: {},
  httpCheckFrequencyMs: 20_000,
};

const pod = (uid: string, image = 'busybox:1.36'): Pod => ({
  metadata: { name: `p-${uid}`, namespace: 'default', uid },
  spec: { containers: [{ name: 'main', image }] },
});

/**
 * The pod config machine under a recording parent, with fake sources: each fake keeps its
 * `sendBack` so the test speaks for the source, and records its input and whether it was stopped.
 */
function start(input: Partial<PodConfigInput> = {}, overrides: { fileSource?: ReturnType<typeof fromCallback<PodSourceEvent, FileSourceInput>> } = {}) {
  const sendBacks: Partial<Record<PodSourceName, (e: PodSourceEvent) => void>> = {};
  const inputs: Partial<Record<PodSourceName, FileSourceInput | HttpSourceInput | ApiSourceInput>> = {};
  const stopped: PodSourceName[] = [];
  const fake = <T extends FileSourceInput | HttpSourceInput | ApiSourceInput>(source: PodSourceName) =>
    fromCallback<PodSourceEvent, T>(({ input: sourceInput, sendBack }) => {
      sendBacks[source] = sendBack;
      inputs[source] = sourceInput;
      return () => stopped.push(source);
    });
  const received: AnyEventObject[] = [];
  const parent = setup({
    actors: {
      podConfig: podConfigMachine.provide({
        actors: { fileSource: overrides.fileSource ?? fake<FileSourceInput>('file'), httpSource: fake<HttpSourceInput>('http'), apiSource: fake<ApiSourceInput>('api') },
      }),
    },
  }).createMachine({
    invoke: { id: 'podConfig', src: 'podConfig', input: { ...baseInput, ...input } },
    on: { '*': { actions: ({ event }) => received.push(event) } },
  });
  const actor = createActor(parent).start();
  const child = () => actor.getSnapshot().children['podConfig'] as AnyActorRef;
  let now = 1_000;
  const snapshot = (source: PodSourceName, pods: Pod[], rejected: { origin: string; reason: string }[] = []) =>
    sendBacks[source]!({ type: 'pod.source.snapshot', source, pods, rejected, observedAtMs: (now += 1000) });
  const failure = (source: PodSourceName, origin: string, reason: string) =>
    sendBacks[source]!({ type: 'pod.source.failed', source, origin, reason, observedAtMs: (now += 1000) });
  const take = () => received.splice(0).map((e) => summarize(e));
  return { actor, child, snapshot, failure, take, inputs, stopped, sendBacks };
}

/** An event to the parent in one line: `updated ADD file a,b`, `sourcesReady`, `rejected file x.yaml: why`. */
function summarize(e: AnyEventObject): string {
  if (e.type === 'pod.config.updated') return `updated ${e['op']} ${e['source']} ${(e['pods'] as Pod[]).map((p) => p.metadata.uid).join(',')}`;
  if (e.type === 'pod.config.sourcesReady') return 'sourcesReady';
  if (e.type === 'pod.manifest.rejected') return `rejected ${e['source']} ${e['origin']}: ${e['reason']}`;
  if (e.type === 'pod.manifest.cleared') return `cleared ${e['source']} ${e['origin']}`;
  return e.type;
}

describe('podConfigMachine', () => {
  it('names exactly its source actors as its effects', () => {
    expect([...POD_CONFIG_EFFECTS]).toEqual(['fileSource', 'httpSource', 'apiSource']);
  });

  it('starts only the configured sources, with their inputs', () => {
    const t = start({ staticPodURL: 'http://127.0.0.1:1/pods', staticPodURLHeader: { a: ['b'] }, httpCheckFrequencyMs: 5000 });
    expect(t.inputs.file).toEqual({ nodeName: 'node-1', path: '/etc/kubernetes/manifests', periodMs: 20_000 });
    expect(t.inputs.http).toEqual({ nodeName: 'node-1', url: 'http://127.0.0.1:1/pods', staticPodURLHeader: { a: ['b'] }, periodMs: 5000 });
    const only = start({ staticPodPath: '' , staticPodURL: 'http://x/' });
    expect(only.inputs.file).toBeUndefined();
    expect(only.child().getSnapshot().value).toMatchObject({ fileSource: 'notConfigured', httpSource: { active: 'waitingForSnapshot' } });
  });

  it('sends ADD, then UPDATE, then REMOVE as the source snapshot changes', () => {
    const t = start();
    t.snapshot('file', [pod('a')]);
    expect(t.take()).toEqual(['updated ADD file a', 'sourcesReady']);
    t.snapshot('file', [pod('a', 'busybox:1.37')]);
    expect(t.take()).toEqual(['updated UPDATE file a']);
    t.snapshot('file', [pod('a', 'busybox:1.37')]);
    expect(t.take()).toEqual([]);
    t.snapshot('file', []);
    expect(t.take()).toEqual(['updated REMOVE file a']);
  });

  it('passes the stored pod with its source and first-seen annotations', () => {
    const t = start();
    t.snapshot('file', [pod('a')]);
    const update = t.child().getSnapshot().context.merge.pods.file.a as Pod;
    expect(update.metadata.annotations).toEqual({ 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': new Date(2000).toISOString() });
  });

  it('is ready only once every configured source has delivered, and says so once', () => {
    const t = start({ staticPodURL: 'http://x/' });
    t.snapshot('file', []);
    expect(t.take()).toEqual([]);
    expect(t.child().getSnapshot().value).toMatchObject({ readiness: 'waitingForSources' });
    t.failure('http', 'http://x/', 'http://x/: 500 Internal Server Error');
    expect(t.take()).toEqual(['rejected http http://x/: http://x/: 500 Internal Server Error']);
    expect(t.child().getSnapshot().value).toMatchObject({ httpSource: { active: 'failing' }, readiness: 'waitingForSources' });
    t.snapshot('http', [pod('h')]);
    expect(t.take()).toEqual(['updated ADD http h', 'cleared http http://x/', 'sourcesReady']);
    t.snapshot('file', [pod('f')]);
    expect(t.take()).toEqual(['updated ADD file f']);
    expect(t.child().getSnapshot().value).toEqual({
      fileSource: { active: 'healthy' },
      httpSource: { active: 'healthy' },
      apiSource: 'notConfigured',
      readiness: 'sourcesReady',
    });
  });

  it('runs an api source in cluster mode, merges its pods and passes mirror pods on to the parent', () => {
    const t = start({ staticPodPath: '', apiSource: true });
    expect(t.inputs.api).toEqual({ nodeName: 'node-1' });
    t.snapshot('api', [pod('a1')]);
    expect(t.take()).toEqual(['updated ADD api a1', 'sourcesReady']);
    t.sendBacks.api!({ type: 'api.mirrorPods.observed', pods: [pod('m1')], observedAtMs: 5 } as never);
    expect(t.take()).toEqual(['api.mirrorPods.observed']);
  });

  it('is ready at once when no source is configured', () => {
    const t = start({ staticPodPath: '' });
    expect(t.take()).toEqual(['sourcesReady']);
  });

  it('reports a rejected manifest once, again when its reason changes, cleared when fixed, and again when it broke again', () => {
    const t = start();
    const bad = { origin: '/m/bad.yaml', reason: 'invalid pod: spec.containers: Required value' };
    t.snapshot('file', [pod('a')], [bad]);
    // Readiness is decided after the snapshot's own events.
    expect(t.take()).toEqual(['updated ADD file a', `rejected file /m/bad.yaml: ${bad.reason}`, 'sourcesReady']);
    t.snapshot('file', [pod('a')], [bad]);
    t.snapshot('file', [pod('a')], [bad]);
    expect(t.take()).toEqual([]);
    t.snapshot('file', [pod('a')], [{ origin: bad.origin, reason: 'empty manifest' }]);
    expect(t.take()).toEqual(['rejected file /m/bad.yaml: empty manifest']);
    t.snapshot('file', [pod('a')], []);
    expect(t.take()).toEqual(['cleared file /m/bad.yaml']);
    t.snapshot('file', [pod('a')], []);
    expect(t.take()).toEqual([]);
    t.snapshot('file', [pod('a')], [{ origin: bad.origin, reason: 'empty manifest' }]);
    expect(t.take()).toEqual(['rejected file /m/bad.yaml: empty manifest']);
  });

  it('clears the rejections of one source only, those its latest read no longer gives', () => {
    const t = start({ staticPodURL: 'http://x/' });
    t.snapshot('file', [], [{ origin: '/m/one.yaml', reason: 'empty manifest' }, { origin: '/m/two.yaml', reason: 'empty manifest' }]);
    t.snapshot('http', [], [{ origin: 'http://x/ items[0]', reason: 'empty manifest' }]);
    t.take();
    t.snapshot('file', [], [{ origin: '/m/two.yaml', reason: 'empty manifest' }]);
    expect(t.take()).toEqual(['cleared file /m/one.yaml']);
  });

  it('keeps the pods of a source whose read failed', () => {
    const t = start();
    t.snapshot('file', [pod('a')]);
    t.take();
    t.failure('file', '/etc/kubernetes/manifests', 'unable to read manifest path: EACCES');
    expect(t.take()).toEqual(['rejected file /etc/kubernetes/manifests: unable to read manifest path: EACCES']);
    t.failure('file', '/etc/kubernetes/manifests', 'unable to read manifest path: EACCES');
    expect(t.take()).toEqual([]);
    t.snapshot('file', [pod('a')]);
    expect(t.take()).toEqual(['cleared file /etc/kubernetes/manifests']);
  });

  it('ignores a snapshot that names a source it did not start', () => {
    const t = start();
    t.sendBacks.file!({ type: 'pod.source.snapshot', source: 'http', pods: [pod('x')], rejected: [], observedAtMs: 1 });
    expect(t.take()).toEqual([]);
  });

  it('stops its sources when it is stopped', () => {
    const t = start({ staticPodURL: 'http://x/' });
    t.actor.stop();
    expect(t.stopped.sort()).toEqual(['file', 'http']);
  });

  it('leaves a source region in crashed when its actor fails, keeping the pods', async () => {
    const crashing = fromCallback<PodSourceEvent, FileSourceInput>(({ sendBack }) => {
      sendBack({ type: 'pod.source.snapshot', source: 'file', pods: [pod('a')], rejected: [], observedAtMs: 1 });
      throw new Error('boom');
    });
    const t = start({}, { fileSource: crashing });
    await waitFor(t.child(), (s) => s.matches({ fileSource: 'crashed' }));
    expect(t.child().getSnapshot().value).toMatchObject({ fileSource: 'crashed' });
    expect(Object.keys(t.child().getSnapshot().context.merge.pods.file)).toEqual(['a']);
  });
});

describe('podConfigMachine state graph', () => {
  // What the sources can say, plus a crash of each source actor; the visualizer draws these states.
  const events = (['file', 'http'] as const).flatMap((source) => [
    { type: 'pod.source.snapshot', source, pods: [], rejected: [], observedAtMs: 0 },
    { type: 'pod.source.failed', source, origin: 'x', reason: 'y', observedAtMs: 0 },
    { type: `xstate.error.actor.${source}Source`, error: 'boom' },
  ]);
  // The traversal runs the machine without a parent: messages to the parent are dropped.
  const alone = podConfigMachine.provide({ actions: { sendOutbox: assign({ outbox: [] }), announceSourcesReady: () => {} } });
  const values = (input: PodConfigInput) =>
    new Set(
      getShortestPaths(alone, {
        events: events as never,
        input,
        serializeState: (s: SnapshotFrom<typeof alone>) => JSON.stringify(s.value),
      } as never).map((p) => JSON.stringify(p.state.value)),
    );

  it('reaches every source state and readiness with both sources configured', () => {
    const reached = [...values({ ...baseInput, staticPodURL: 'http://x/' })].map((v) => JSON.parse(v));
    for (const region of ['fileSource', 'httpSource'] as const) {
      const states = new Set(reached.map((v) => JSON.stringify(v[region])));
      for (const s of [{ active: 'waitingForSnapshot' }, { active: 'healthy' }, { active: 'failing' }, 'crashed']) {
        expect(states.has(JSON.stringify(s))).toBe(true);
      }
    }
    expect(reached.some((v) => v.readiness === 'sourcesReady' && v.httpSource.active === 'failing')).toBe(true);
  });

  it('never becomes ready before each configured source delivered a snapshot', () => {
    const paths = getShortestPaths(alone, { events: events as never, input: { ...baseInput, staticPodURL: 'http://x/' }, serializeState: (s: SnapshotFrom<typeof alone>) => JSON.stringify(s.value) } as never);
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const ready = (path.state.value as { readiness: string }).readiness === 'sourcesReady';
      const delivered = new Set(path.steps.filter((s) => s.event.type === 'pod.source.snapshot').map((s) => (s.event as { source: string }).source));
      expect(ready).toBe(delivered.has('file') && delivered.has('http'));
    }
  });

  it('leaves an unconfigured source in notConfigured', () => {
    const reached = [...values({ ...baseInput, staticPodPath: '' })].map((v) => JSON.parse(v));
    expect(new Set(reached.map((v) => v.fileSource))).toEqual(new Set(['notConfigured']));
  });
});
