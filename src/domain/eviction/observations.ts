/**
 * Signal observations from the summary (Go: makeSignalObservations): what is available of each
 * resource, out of what capacity, as of when. A signal whose readings are missing has no
 * observation, and its thresholds are then neither met nor cleared.
 * - memory.available: the node's availableBytes, out of availableBytes + workingSetBytes;
 * - nodefs.*: the root filesystem (node.fs) bytes and inodes;
 * - imagefs.*: the runtime's image filesystem (node.runtime.imageFs);
 * - pid.available: maxpid − curproc, out of maxpid (node.rlimit).
 */
import type { FsStats, Summary } from '../stats/summary-types.js';
import type { Signal } from './signals.js';

export interface Observation {
  available: number;
  capacity: number;
  /** The reading's metav1.Time; a threshold acts only on readings newer than the last cycle's. */
  time: string;
}

export type Observations = Partial<Record<Signal, Observation>>;

const num = (v: bigint | number | undefined): number | undefined => (v === undefined ? undefined : Number(v));

function observe(available: bigint | number | undefined, capacity: bigint | number | undefined, time: string): Observation | undefined {
  const a = num(available);
  const c = num(capacity);
  return a === undefined || c === undefined ? undefined : { available: a, capacity: c, time };
}

function fsObservations(fs: FsStats | undefined, bytes: Signal, inodes: Signal): Observations {
  if (!fs) return {};
  const out: Observations = {};
  const b = observe(fs.availableBytes, fs.capacityBytes, fs.time);
  const i = observe(fs.inodesFree, fs.inodes, fs.time);
  if (b) out[bytes] = b;
  if (i) out[inodes] = i;
  return out;
}

export function signalObservations(summary: Summary): Observations {
  const { memory, fs, runtime, rlimit } = summary.node;
  const out: Observations = {
    ...fsObservations(fs, 'nodefs.available', 'nodefs.inodesFree'),
    ...fsObservations(runtime?.imageFs, 'imagefs.available', 'imagefs.inodesFree'),
  };
  if (memory?.availableBytes !== undefined && memory.workingSetBytes !== undefined) {
    out['memory.available'] = { available: Number(memory.availableBytes), capacity: Number(memory.availableBytes + memory.workingSetBytes), time: memory.time };
  }
  if (rlimit?.maxpid !== undefined && rlimit.curproc !== undefined) {
    out['pid.available'] = { available: rlimit.maxpid - rlimit.curproc, capacity: rlimit.maxpid, time: rlimit.time };
  }
  return out;
}

/**
 * Whether the runtime's image filesystem is another device than the node's root filesystem (Go's
 * dedicatedImageFs, which asks cAdvisor for the devices). The summary has no device ids, so two
 * filesystems of the same capacity are taken to be one (free bytes move between the two reads).
 */
export function hasDedicatedImageFs(summary: Summary): boolean {
  const node = summary.node.fs;
  const image = summary.node.runtime?.imageFs;
  if (!node || !image) return false;
  return node.capacityBytes !== image.capacityBytes;
}
