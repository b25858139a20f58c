/**
 * Typed reads of the running actors' latest snapshots (kept by the ActorDirectory, which holds them
 * untyped because it holds every kind). Each cast below is the one place that says which machine
 * an actor id belongs to; the id is the machine's systemId, given in system.ts and the machines.
 */
import type { ActorDirectory } from '../actors/debug/actor-directory.js';
import type { PlegContext } from '../machines/pleg.machine.js';
import type { SyncLoopContext } from '../machines/sync-loop.machine.js';
import type { VolumeManagerContext } from '../machines/volume-manager.machine.js';

export interface SystemViews {
  syncLoop: () => SyncLoopContext | undefined;
  pleg: () => PlegContext | undefined;
  volumeManager: () => VolumeManagerContext | undefined;
}

export function createSystemViews(directory: ActorDirectory): SystemViews {
  return {
    syncLoop: () => (directory.snapshot('syncLoop') as { context?: SyncLoopContext } | undefined)?.context,
    pleg: () => (directory.snapshot('pleg') as { context?: PlegContext } | undefined)?.context,
    volumeManager: () => (directory.snapshot('volumeManager') as { context?: VolumeManagerContext } | undefined)?.context,
  };
}

/** The syncLoop's pods for /debug/pods: each pod's identity, lifecycle and latest status; the uids of orphans being killed. */
export function podsView(ctx: SyncLoopContext | undefined) {
  if (!ctx) return { pods: [], rejectedManifests: [], orphans: [] };
  return {
    pods: Object.entries(ctx.pods).map(([uid, p]) => ({
      uid,
      namespace: p.pod.metadata.namespace,
      name: p.pod.metadata.name,
      lifecycle: p.lifecycle,
      status: p.status,
    })),
    rejectedManifests: ctx.rejectedManifests,
    orphans: Object.keys(ctx.orphans),
  };
}
