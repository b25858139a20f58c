/**
 * A large journal written as a long run's is: through the file sink (pods, outputs and events
 * written by reference, segments rotated with a checkpoint at the head of each new one), of a node
 * whose pods come and go. Each round the node relists (naming every live pod), renews its lease and
 * probes every pod; the oldest pod is killed and a new one admitted, the source's snapshot naming the
 * pods then live. A pod's history is so bounded by its life, whatever the journal's size: what
 * `explain` must keep of a large log. One pod, `default/target`, is the one to explain.
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileJournalSink } from '../src/adapters/journal-file/file-sink.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../src/domain/journal/record.js';

export interface LargeJournalOptions {
  /** Made here: the log's segments are every file in it. */
  dir: string;
  /** Rounds are written until the files hold this many bytes. */
  bytes: number;
  segmentBytes: number;
  /** Pods live at once (each is named in every relist and snapshot while it lives). */
  livePods?: number;
}

export interface LargeJournal {
  path: string;
  bytes: number;
  records: number;
  pods: number;
  target: { uid: string; namespace: string; name: string };
}

const LIVE_PODS = 30;
/** Rounds written between flushes: the sink queues records in memory until written. */
const ROUNDS_PER_FLUSH = 50;
/** The round whose new pod is `target`: early, so every size of journal holds its whole life. */
const TARGET_ROUND = 40;
const ROUND_MS = 1000;

type Pod = ReturnType<typeof makePod>;
type Write = (fields: Pick<JournalRecord, 'actor' | 'type' | 'name' | 'payload'> & Partial<JournalRecord>) => void;

export async function writeLargeJournal(opts: LargeJournalOptions): Promise<LargeJournal> {
  mkdirSync(opts.dir);
  const path = join(opts.dir, 'events.jsonl');
  const livePods = opts.livePods ?? LIVE_PODS;
  let seq = 0;
  let t = 0;
  const live: Pod[] = [];
  const write: Write = (fields) => {
    sink.append({ seq: ++seq, t, wall: new Date(t).toISOString(), kind: 'derived', source: null, ...fields });
  };
  const sink: FileJournalSink = new FileJournalSink({
    path, maxSegmentBytes: opts.segmentBytes, maxSegments: Math.ceil(opts.bytes / opts.segmentBytes) + 2,
    onRotate: () => write({ actor: 'supervisor', type: 'checkpoint', name: 'checkpoint', payload: { snapshot: { status: 'active', context: { pods: [...live] } } } }),
  });
  sink.open({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 'bench', startTime: new Date(0).toISOString(), nodeName: 'bench', configSha256: null, machinesSha256: 'bench', segment: 1 });
  write({ actor: 'supervisor', type: 'action', name: 'spawn', payload: { child: 'syncLoop', src: 'syncLoop', input: { node: { labels: { 'kubernetes.io/hostname': 'bench' }, taints: [] } } } });

  let pods = 0;
  let target: Pod | undefined;
  for (let round = 1; ; round++) {
    t = round * ROUND_MS;
    write({ actor: 'pleg', kind: 'input', type: 'event', name: 'xstate.done.actor.relist', source: 'pleg/relist', payload: { output: { pods: live.map((p) => ({ podUid: p.metadata.uid, containers: [{ id: containerId(p), state: 'running' }] })) }, actorId: 'relist' } });
    write({ actor: 'nodeLease', kind: 'input', type: 'event', name: 'xstate.done.actor.renewLease', source: 'nodeLease/renewLease', payload: { output: { renewTime: new Date(t).toISOString() }, actorId: 'renewLease' } });
    for (const p of live) {
      const probe = `probe:${p.metadata.uid}:main:readiness`;
      write({ actor: probe, kind: 'input', type: 'event', name: 'xstate.done.actor.runProbe', source: `${probe}/runProbe`, payload: { output: { result: 'success', output: '' }, actorId: 'runProbe' } });
    }
    if (live.length >= livePods) {
      const gone = live.shift()!;
      const worker = `pod:${gone.metadata.uid}`;
      write({ actor: 'syncLoop', type: 'action', name: 'send', payload: { to: worker, event: { type: 'pod.kill.requested', gracePeriodSeconds: 30 } } });
      write({ actor: worker, kind: 'input', type: 'event', name: 'xstate.done.actor.killPod', source: `${worker}/killPod`, payload: { output: { podUid: gone.metadata.uid, ok: true }, actorId: 'killPod' } });
      write({ actor: 'syncLoop', type: 'action', name: 'stop', payload: { child: worker } });
    }
    const born = makePod(round === TARGET_ROUND ? 'target' : `web-${round}`, round);
    if (round === TARGET_ROUND) target = born;
    live.push(born);
    pods += 1;
    admit(write, born, [...live]);
    if (round % ROUNDS_PER_FLUSH !== 0) continue;
    await sink.flush();
    if (target && filesBytes(opts.dir) >= opts.bytes) break;
  }
  await sink.close();
  if (!target) throw new Error('the journal ended before its target pod was made');
  const { uid, namespace, name } = target.metadata;
  return { path, bytes: filesBytes(opts.dir), records: seq, pods, target: { uid, namespace, name } };
}

/** A new pod: the source's snapshot, the worker spawned, its sync, its first readiness verdict. */
function admit(write: Write, pod: Pod, live: Pod[]): void {
  const uid = pod.metadata.uid;
  const worker = `pod:${uid}`;
  write({ actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: live } });
  write({ actor: 'syncLoop', type: 'action', name: 'spawn', payload: { child: worker, src: 'podWorker', input: { pod, assignment: {} } } });
  write({ actor: worker, kind: 'input', type: 'event', name: 'xstate.done.actor.syncPod', source: `${worker}/syncPod`, payload: { output: { podUid: uid, ok: true, steps: [{ step: 'startContainer', target: 'main', ok: true, id: containerId(pod), durationMs: 3 }] }, actorId: 'syncPod' } });
  write({ actor: `probe:${uid}:main:readiness`, type: 'action', name: 'send', payload: { to: 'syncLoop', event: { type: 'probe.result.changed', podUid: uid, container: 'main', containerId: containerId(pod), probe: 'readiness', result: 'success' } } });
  write({ actor: 'statusManager', type: 'action', name: 'send', payload: { to: 'apiServer', event: { type: 'pod.status.patch', podUid: uid, phase: 'Running' } } });
}

/** A pod with what a real one carries: resources, env, a probe, volumes. */
function makePod(name: string, n: number) {
  const uid = `0f5c3c4e-6a4b-4c8e-9d6f-${String(n).padStart(12, '0')}`;
  return {
    metadata: { name, namespace: 'default', uid, labels: { app: name }, annotations: {} },
    spec: {
      containers: [{
        name: 'main', image: 'registry.example/web:1.0', command: ['/bin/web', '--port=8080'],
        env: [{ name: 'MODE', value: 'bench' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        volumeMounts: [{ name: 'config', mountPath: '/etc/web' }],
      }],
      volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
      terminationGracePeriodSeconds: 30,
    },
  };
}

const containerId = (pod: Pod) => pod.metadata.uid.replace(/-/g, '').padEnd(64, '0');

function filesBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}
