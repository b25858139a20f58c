/**
 * Pod start-up figures read back from a kubelet-ts event log, so the kubelet's own share can be told
 * from the runtime's: for each pod, the time from
 * the manifest being seen (the first pod-source snapshot that lists it) to the end of the sync that
 * started its last container, and how much of that the runtime's calls account for (the sync steps'
 * `durationMs`, every step being built around CRI calls, plus any pod-status reads in between).
 * What is left is the kubelet's own share: dispatch, queueing, planning, journal, event loop.
 * Also the PLEG relists' own timings. Pure: records in, figures out.
 */
import type { JournalRecord } from '../src/domain/journal/record.js';

export interface PodStartTiming {
  uid: string;
  name: string;
  /** Logical ms of the first snapshot listing the pod. */
  seenAtMs: number;
  /** Logical ms of the sync result that had started every container of the spec. */
  startedAtMs: number;
  /** The same moment on the wall clock (epoch ms), to compare with a time taken outside the daemon. */
  startedWallMs: number;
  totalMs: number;
  /** Sum of the sync steps' durations and pod-status reads between seen and started. */
  runtimeMs: number;
  /** totalMs − runtimeMs. */
  kubeletMs: number;
}

export interface RelistTiming {
  /** Logical ms of the result. */
  atMs: number;
  /** Wall clock (epoch ms) of the result. */
  wallMs: number;
  durationMs: number;
  /** Pods the runtime listed; null when the answer was "unchanged" (the same pods as last time, not resent). */
  pods: number | null;
}

interface SnapshotPod { metadata?: { uid?: string; name?: string }; spec?: { containers?: { name: string }[] } }
interface SyncStep { step: string; ok: boolean; target: string; durationMs: number }
interface SyncOutput { podUid?: string; steps?: SyncStep[] }

interface Tracking {
  uid: string;
  name: string;
  seenAtMs: number;
  want: Set<string>;
  started: Set<string>;
  runtimeMs: number;
  statusReadSince?: number;
  startedAtMs?: number;
  startedWallMs?: number;
}

const podUidOfActor = (actor: string): string | undefined => /^pod:([^/]+)/.exec(actor)?.[1];

export function podStartTimings(records: readonly JournalRecord[]): PodStartTiming[] {
  const pods = new Map<string, Tracking>();
  for (const r of records) {
    if (r.type === 'event' && r.name === 'pod.source.snapshot') {
      for (const p of ((r.payload as { pods?: SnapshotPod[] }).pods ?? [])) {
        const uid = p.metadata?.uid;
        if (!uid || pods.has(uid)) continue;
        pods.set(uid, {
          uid, name: p.metadata?.name ?? uid, seenAtMs: r.t,
          want: new Set((p.spec?.containers ?? []).map((c) => c.name)), started: new Set(), runtimeMs: 0,
        });
      }
      continue;
    }
    const uid = podUidOfActor(r.actor);
    const pod = uid === undefined ? undefined : pods.get(uid);
    if (!pod || pod.startedAtMs !== undefined) continue;
    if (r.type === 'actor' && r.name === 'getPodStatus') pod.statusReadSince = r.t;
    else if (r.type === 'event' && r.name === 'xstate.done.actor.getPodStatus' && pod.statusReadSince !== undefined) {
      pod.runtimeMs += r.t - pod.statusReadSince;
      pod.statusReadSince = undefined;
    } else if (r.type === 'event' && r.name === 'xstate.done.actor.syncPod') {
      const output = (r.payload as { output?: SyncOutput }).output;
      for (const s of output?.steps ?? []) {
        pod.runtimeMs += s.durationMs;
        if (s.step === 'startContainer' && s.ok) pod.started.add(s.target);
      }
      if (pod.want.size > 0 && [...pod.want].every((n) => pod.started.has(n))) {
        pod.startedAtMs = r.t;
        pod.startedWallMs = Date.parse(r.wall);
      }
    }
  }
  const out: PodStartTiming[] = [];
  for (const p of pods.values()) {
    if (p.startedAtMs === undefined || p.startedWallMs === undefined) continue;
    const totalMs = p.startedAtMs - p.seenAtMs;
    out.push({
      uid: p.uid, name: p.name, seenAtMs: p.seenAtMs, startedAtMs: p.startedAtMs, startedWallMs: p.startedWallMs,
      totalMs, runtimeMs: p.runtimeMs, kubeletMs: totalMs - p.runtimeMs,
    });
  }
  return out;
}

/** Every PLEG relist result: its own measured duration and how many pods it listed. */
export function relistTimings(records: readonly JournalRecord[]): RelistTiming[] {
  const out: RelistTiming[] = [];
  for (const r of records) {
    if (r.actor !== 'pleg' || r.name !== 'xstate.done.actor.relist') continue;
    const output = (r.payload as { output?: { durationMs?: number; pods?: unknown[]; unchanged?: boolean } }).output;
    if (typeof output?.durationMs !== 'number') continue;
    out.push({ atMs: r.t, wallMs: Date.parse(r.wall), durationMs: output.durationMs, pods: output.unchanged ? null : output.pods?.length ?? 0 });
  }
  return out;
}
