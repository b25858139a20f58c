/**
 * What the pod spec fuzz targets share: a decoy tree with a kubelet root and a hostPath sandbox at
 * its bottom, and a pod laid out on disk as the kubelet lays one out, with the real adapters: the
 * pod directory and its /etc/hosts, the termination-message files, the pod's log directories, every
 * mounted volume set up by the real volume plugins (emptyDir, hostPath, the atomic writer for API
 * and downward API content), every subPath resolved; then the volumes torn down and the pod
 * directory removed by the real clean-up (the pod's own removal, or the orphan sweep after a
 * restart). `check` then says what leaked: a change in the decoy tree (listed with modes, owners
 * and contents), a tmpfs outside the root, a pod directory left, or a crash (an exception that is
 * neither a KubeletError nor a system error with an errno code, the two ways the kubelet reports a
 * failed step).
 *
 * The mounter records tmpfs mounts instead of making them (a test may not be root, and the
 * plugins' own code still runs).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPodFiles } from '../../src/adapters/fs/pod-files.js';
import { makeDirectories } from '../../src/adapters/fs/make-directories.js';
import { createApiContentWriter } from '../../src/adapters/volumes/api-content.js';
import type { Mounter } from '../../src/adapters/volumes/mount-table.js';
import { createVolumePlugins } from '../../src/adapters/volumes/volume-plugins.js';
import { KubeletError } from '../../src/domain/errors.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { podLogsDirectory } from '../../src/domain/runtime/container-config.js';
import { containerSubPath } from '../../src/domain/runtime/subpath.js';
import { mountedVolumes, volumePluginName } from '../../src/domain/volumes/pod-volumes.js';
import type { VolumeSources } from '../../src/ports/volume-sources.js';
import { listTree } from '../support/tree-listing.js';
import { DECOY_NAMES } from './hostile-pod-specs.js';

/** Deeper than any `..` run a generated pod can put together, so that every escape lands in the decoy tree. */
const DEPTH = 20;

export interface DiskCounts { laidOut: number; volumesSetUp: number; stepsFailed: number }

export interface PodDisk {
  root: string;
  sandbox: string;
  counts: DiskCounts;
  /** Lays `pod` out and cleans it up; answers every leak found (empty when none). */
  layOutAndCheck(pod: Pod, viaOrphanSweep: boolean): Promise<string[]>;
  remove(): void;
}

/** The decoys at one level: what the attacker aimed at (a 0700 directory holding a 0644 file), and a file of mode 0600. */
function plantDecoys(dir: string): void {
  for (const name of DECOY_NAMES) {
    mkdirSync(join(dir, name), { mode: 0o700 });
    writeFileSync(join(dir, name, 'precious.txt'), `${name} in ${dir}\n`, { mode: 0o644 });
    chmodSync(join(dir, name), 0o700);
  }
  writeFileSync(join(dir, 'note.txt'), 'keep\n', { mode: 0o600 });
}

/** A Mounter that keeps its tmpfs mounts in a list, as the mount table would. */
function recordingMounter(): Mounter & { everMounted: string[] } {
  const points = new Set<string>();
  const everMounted: string[] = [];
  return {
    everMounted,
    mountPoints: async () => [...points],
    mountTmpfs: async (dir) => {
      points.add(dir);
      everMounted.push(dir);
    },
    unmount: async (dir) => {
      points.delete(dir);
    },
  };
}

function isReportedFailure(err: unknown): boolean {
  if (err instanceof KubeletError) return true;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

export function createPodDisk(prefix: string, sources: VolumeSources): PodDisk {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  let level = base;
  plantDecoys(level);
  for (let i = 1; i <= DEPTH; i++) {
    level = join(level, `d${i}`);
    mkdirSync(level);
    plantDecoys(level);
  }
  const root = join(level, 'root');
  const sandbox = join(level, 'sandbox');
  mkdirSync(root);
  mkdirSync(sandbox);
  const outside = listTree(base, [root, sandbox]);

  const mounter = recordingMounter();
  const plugins = createVolumePlugins({ rootDir: root, mounter, content: createApiContentWriter({ sources, clock: { now: () => 0 } }) });
  let seq = 0;
  const files = createPodFiles(root, { next: () => ((seq = (seq * 7919 + 1) % 104_729) / 104_729) });
  const counts: DiskCounts = { laidOut: 0, volumesSetUp: 0, stepsFailed: 0 };

  async function layOutAndCheck(pod: Pod, viaOrphanSweep: boolean): Promise<string[]> {
    const leaks: string[] = [];
    const step = async (what: string, run: () => Promise<unknown>): Promise<void> => {
      try {
        await run();
      } catch (err) {
        if (isReportedFailure(err)) counts.stepsFailed++;
        else leaks.push(`crash in ${what}: ${(err as Error)?.stack ?? String(err)}`);
      }
    };
    counts.laidOut++;
    const uid = pod.metadata.uid;
    const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
    const volumes = mountedVolumes(pod);
    const setUp = new Map<string, string>();
    try {
      await step('etc-hosts', () => files.ensureHostsFile(pod, ['10.0.0.7'], 'cluster.local'));
      for (const c of containers) {
        await step('termination message file', () => files.createTerminationMessageFile(uid, c.name));
        await step('log directory', () => makeDirectories(`${podLogsDirectory(join(root, 'logs'), pod)}/${c.name}`));
      }
      for (const volume of volumes) {
        await step(`set-up of ${volume.name}`, async () => {
          setUp.set(volume.name, (await plugins.setUp(pod, volume.name, { remount: false })).hostPath);
          counts.volumesSetUp++;
        });
      }
      for (const c of containers) {
        const env = (c.env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' }));
        for (const m of c.volumeMounts ?? []) {
          const volumePath = setUp.get(m.name);
          if (volumePath === undefined || (!m.subPath && !m.subPathExpr)) continue;
          await step('subPath', async () => {
            const subPath = containerSubPath(m, env);
            if (subPath) await files.resolveSubPath({ volumePath, subPath, volumeMountName: m.name, containerName: c.name });
          });
        }
      }
    } finally {
      for (const volume of volumes) {
        const plugin = volumePluginName(volume);
        if (plugin) await step(`tear-down of ${volume.name}`, () => plugins.tearDown(uid, volume.name, plugin));
      }
      const cleanup = viaOrphanSweep ? await plugins.cleanupOrphanedPodDirectories([]) : await plugins.removePodDirectory(uid);
      if (cleanup.kept.length > 0) leaks.push(`pod directories kept: ${JSON.stringify(cleanup.kept)}`);
    }
    try {
      const left = readdirSync(join(root, 'pods'));
      if (left.length > 0) leaks.push(`left in <root>/pods: ${left.join(', ')}`);
    } catch (err) {
      leaks.push(`<root>/pods unreadable: ${(err as Error).message}`);
    }
    const mountedOutside = mounter.everMounted.filter((dir) => !isUnder(dir, root));
    if (mountedOutside.length > 0) leaks.push(`tmpfs outside the root: ${mountedOutside.join(', ')}`);
    const now = listTree(base, [root, sandbox]);
    const [was, is] = [new Set(outside), new Set(now)];
    const changed = [...now.filter((line) => !was.has(line)).map((l) => `+ ${l}`), ...outside.filter((line) => !is.has(line)).map((l) => `- ${l}`)];
    if (changed.length > 0) leaks.push(`outside the root and sandbox:\n${changed.join('\n')}`);
    return leaks;
  }

  return { root, sandbox, counts, layOutAndCheck, remove: () => rmSync(base, { recursive: true, force: true }) };
}
