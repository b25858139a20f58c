/**
 * The pod spec fuzz target (issue 40): generated static pods with hostile volume names, UIDs,
 * hostPath paths, item keys and paths, subPaths and mounts (hostile-pod-specs.ts) go through the
 * static pod decoder. Each must end refused with a field error, or accepted; an accepted one is then
 * laid out on disk as the kubelet lays a pod out, with the real adapters, against a temporary root:
 * the pod directory and its /etc/hosts, the termination-message files, the pod's log directories,
 * every mounted volume set up by the real volume plugins (emptyDir, hostPath, the atomic writer for
 * downwardAPI and projected content), every subPath resolved; then the volumes torn down and the pod
 * directory removed by the real clean-up (the pod's own removal, or the orphan sweep after a
 * restart). A decoy tree all around the root (at every level above it, with the names the `..` runs
 * aim at) is listed with modes, owners and contents before and after each pod: nothing outside the
 * root and the hostPath sandbox may be created, changed or removed. A failed step is fine when it
 * fails as the kubelet reports failures (a KubeletError, or a system error with an errno code); any
 * other exception is a crash.
 *
 * The mounter records tmpfs mounts instead of making them (a test may not be root, and the
 * plugins' own code still runs): a tmpfs asked for outside the root counts as an escape.
 * The seed is the fuzz suite's (FUZZ_SEED repeats a run; FUZZ_POD_RUNS changes the count).
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPodFiles } from '../../src/adapters/fs/pod-files.js';
import { makeDirectories } from '../../src/adapters/fs/make-directories.js';
import { createStandaloneVolumeSources } from '../../src/adapters/volume-sources/create-volume-sources.js';
import { createApiContentWriter } from '../../src/adapters/volumes/api-content.js';
import type { Mounter } from '../../src/adapters/volumes/mount-table.js';
import { createVolumePlugins } from '../../src/adapters/volumes/volume-plugins.js';
import { KubeletError } from '../../src/domain/errors.js';
import { decodeStaticPod } from '../../src/domain/pod-config/static-pod.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { podLogsDirectory } from '../../src/domain/runtime/container-config.js';
import { containerSubPath } from '../../src/domain/runtime/subpath.js';
import { mountedVolumes, volumePluginName } from '../../src/domain/volumes/pod-volumes.js';
import { listTree } from '../support/tree-listing.js';
import { FUZZ_SEED } from './hostile-arbitraries.js';
import { DECOY_NAMES, hostilePodManifest } from './hostile-pod-specs.js';

const RUNS = Number(process.env.FUZZ_POD_RUNS ?? 2_000);
/** Deeper than any `..` run a pod can put together (a UID's and a volume name's), so every escape lands in the decoy tree. */
const DEPTH = 20;
const NODE = 'fuzz-node';

let base: string;
let root: string;
let sandbox: string;

/** The decoys at one level: what the attacker aimed at (a 0700 directory holding a 0644 file), and a file of mode 0600. */
function plantDecoys(dir: string): void {
  for (const name of DECOY_NAMES) {
    mkdirSync(join(dir, name), { mode: 0o700 });
    writeFileSync(join(dir, name, 'precious.txt'), `${name} in ${dir}\n`, { mode: 0o644 });
    chmodSync(join(dir, name), 0o700);
  }
  writeFileSync(join(dir, 'note.txt'), 'keep\n', { mode: 0o600 });
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'kts-fuzz-pods-')));
  let level = base;
  plantDecoys(level);
  for (let i = 1; i <= DEPTH; i++) {
    level = join(level, `d${i}`);
    mkdirSync(level);
    plantDecoys(level);
  }
  root = join(level, 'root');
  sandbox = join(level, 'sandbox');
  mkdirSync(root);
  mkdirSync(sandbox);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

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

/** A failure as the kubelet reports one: its own error, or the system's (with an errno code). Anything else is a crash. */
function isReportedFailure(err: unknown): boolean {
  if (err instanceof KubeletError) return true;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

describe(`pod spec fuzz, seed ${FUZZ_SEED}`, () => {
  it(`decodes ${RUNS} generated static pods: refused naming a field, or laid out and cleaned up with nothing outside the root touched`, async () => {
    const outside = listTree(base, [root, sandbox]);
    expect(outside.length).toBeGreaterThan(DEPTH * 8);
    const mounter = recordingMounter();
    const plugins = createVolumePlugins({ rootDir: root, mounter, content: createApiContentWriter({ sources: createStandaloneVolumeSources(), clock: { now: () => 0 } }) });
    let seq = 0;
    const files = createPodFiles(root, { next: () => ((seq = (seq * 7919 + 1) % 104_729) / 104_729) });
    const counts = { refused: 0, accepted: 0, volumesSetUp: 0, stepsFailed: 0 };
    const crashes: string[] = [];

    async function step(what: string, run: () => Promise<unknown>): Promise<boolean> {
      try {
        await run();
        return true;
      } catch (err) {
        if (isReportedFailure(err)) counts.stepsFailed++;
        else crashes.push(`${what}: ${(err as Error)?.stack ?? String(err)}`);
        return false;
      }
    }

    async function layOut(pod: Pod, viaOrphanSweep: boolean): Promise<void> {
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
          for (const m of c.volumeMounts ?? []) {
            const volumePath = setUp.get(m.name);
            if (volumePath === undefined || (!m.subPath && !m.subPathExpr)) continue;
            const env = (c.env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' }));
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
        expect(cleanup.kept, JSON.stringify(cleanup)).toEqual([]);
      }
    }

    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(hostilePodManifest(sandbox), fc.boolean(), async (manifest, viaOrphanSweep) => {
        const decoded = decodeStaticPod(manifest, { source: 'file', origin: '/etc/kubernetes/manifests/fuzz.yaml', nodeName: NODE });
        if (!decoded.ok) {
          counts.refused++;
          // A field error (`spec.volumes[0].name: Invalid value: …`, `metadata.uid: …`), or the API-reference refusal.
          expect(decoded.reason).toMatch(/(^|: |; )(metadata|spec)(\.[A-Za-z]+|\[\d+\])+: |^static pods may not reference /);
          return;
        }
        counts.accepted++;
        const pod = decoded.value;
        // What crashed the daemon at every start: two volume actors of one id.
        const names = (pod.spec.volumes ?? []).map((v) => v.name);
        expect(new Set(names).size).toBe(names.length);
        await layOut(pod, viaOrphanSweep);
        expect(crashes).toEqual([]);
        expect(readdirSync(join(root, 'pods'))).toEqual([]);
        expect(mounter.everMounted.filter((dir) => !isUnder(dir, root))).toEqual([]);
        expect(listTree(base, [root, sandbox])).toEqual(outside);
      }),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
    process.stdout.write(`pod spec fuzz, seed ${FUZZ_SEED}: ${counts.accepted} accepted (${counts.volumesSetUp} volumes set up, ${counts.stepsFailed} steps failed as reported failures), ${counts.refused} refused, ${Date.now() - started} ms\n`);
    // Enough pods get through for the disk half to mean something.
    expect(counts.accepted).toBeGreaterThan(RUNS / 5);
    expect(counts.volumesSetUp).toBeGreaterThan(RUNS / 5);
  }, 120_000);
});
