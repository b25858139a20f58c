/**
 * The pod spec fuzz target (issue 40), static pods: generated manifests with hostile volume names,
 * UIDs, hostPath paths, item keys and paths, subPaths and mounts (hostile-pod-specs.ts) go through
 * the static pod decoder. Each must end refused with a field error (or, for a pod naming an API
 * object, refused as static pods are), or accepted; an accepted one is laid out on disk and cleaned
 * up by the real adapters (pod-disk-harness.ts), with nothing outside the kubelet's root and the
 * hostPath sandbox created, changed or removed, no crash, and no two volumes of one name (the
 * duplicate actor id that stopped the daemon at every start).
 * The seed is the fuzz suite's (FUZZ_SEED repeats a run; FUZZ_POD_RUNS changes the count).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStandaloneVolumeSources } from '../../src/adapters/volume-sources/create-volume-sources.js';
import { decodeStaticPod } from '../../src/domain/pod-config/static-pod.js';
import { FUZZ_SEED } from './hostile-arbitraries.js';
import { hostilePodManifest } from './hostile-pod-specs.js';
import { createPodDisk, type PodDisk } from './pod-disk-harness.js';

const RUNS = Number(process.env.FUZZ_POD_RUNS ?? 2_000);
/** The bound of the RUNS decodes and disk layouts: generous for a loaded 2-core machine (over 120 s at load 20-40). */
const RUNS_TIMEOUT_MS = 600_000;
const ORIGIN = { source: 'file' as const, origin: '/etc/kubernetes/manifests/fuzz.yaml', nodeName: 'fuzz-node' };
/** A field error as Go writes it (`spec.volumes[0].name: Invalid value: …`), or the refusal of a static pod naming an API object. */
const FIELD_ERROR = /(^|: |; )(metadata|spec)(\.[A-Za-z]+|\[\d+\])+: |^static pods may not reference /;

let disk: PodDisk;
beforeAll(() => {
  disk = createPodDisk('kts-fuzz-static-pods-', createStandaloneVolumeSources());
});
afterAll(() => disk?.remove());

describe(`static pod spec fuzz, seed ${FUZZ_SEED}`, () => {
  it(`decodes ${RUNS} generated static pods: refused naming a field, or laid out and cleaned up with nothing outside the root touched`, async () => {
    let refused = 0;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(hostilePodManifest(disk.sandbox), fc.boolean(), async (manifest, viaOrphanSweep) => {
        const decoded = decodeStaticPod(manifest, ORIGIN);
        if (!decoded.ok) {
          refused++;
          expect(decoded.reason).toMatch(FIELD_ERROR);
          return;
        }
        const names = (decoded.value.spec.volumes ?? []).map((v) => v.name);
        expect(new Set(names).size).toBe(names.length);
        expect(await disk.layOutAndCheck(decoded.value, viaOrphanSweep)).toEqual([]);
      }),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
    const { laidOut, volumesSetUp, stepsFailed } = disk.counts;
    process.stdout.write(`static pod spec fuzz, seed ${FUZZ_SEED}: ${laidOut} accepted and laid out (${volumesSetUp} volumes set up, ${stepsFailed} steps failed as reported failures), ${refused} refused, ${Date.now() - started} ms\n`);
    // Enough pods get through for the disk half to mean something.
    expect(laidOut).toBeGreaterThan(RUNS / 5);
    expect(volumesSetUp).toBeGreaterThan(RUNS / 5);
  }, RUNS_TIMEOUT_MS);
});
