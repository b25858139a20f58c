/**
 * The pod spec fuzz target (issue 40), API pods: the same hostile specs, with ConfigMap, Secret and
 * projected volumes (tokens included) as often as the rest, and the ConfigMap and Secret they name
 * holding hostile keys (a key becomes a file name when a volume lists no items). A spec the API
 * server would refuse (validatePod stands for its validation, the UID rule aside) never reaches a
 * kubelet. The others enter through the API source's view: a pod whose UID is not one safe path
 * segment must be refused there, by `namespace/name` with the `metadata.uid` error, and not run;
 * every other one is laid out on disk and cleaned up by the real adapters (pod-disk-harness.ts),
 * with nothing outside the kubelet's root and the hostPath sandbox created, changed or removed.
 * The seed is the fuzz suite's (FUZZ_SEED repeats a run; FUZZ_POD_RUNS changes the count).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePod } from '../../src/domain/pod-config/validate-pod.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { viewApiPods } from '../../src/domain/status-manager/api-pod-snapshot.js';
import { FakeVolumeSources, keyed } from '../fakes/fake-volume-sources.js';
import { FUZZ_SEED } from './hostile-arbitraries.js';
import { hostileObjectData, hostilePodManifest } from './hostile-pod-specs.js';
import { createPodDisk, type PodDisk } from './pod-disk-harness.js';

const RUNS = Number(process.env.FUZZ_POD_RUNS ?? 2_000);

const sources = new FakeVolumeSources();
let disk: PodDisk;
beforeAll(() => {
  disk = createPodDisk('kts-fuzz-api-pods-', sources);
});
afterAll(() => disk?.remove());

describe(`API pod spec fuzz, seed ${FUZZ_SEED}`, () => {
  it(`takes ${RUNS} generated API pods: refused for their UID, or laid out and cleaned up with nothing outside the root touched`, async () => {
    const counts = { apiServerRefused: 0, uidRefused: 0 };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(
        hostilePodManifest(disk.sandbox, { apiObjects: true }), fc.uuid(), fc.option(hostileObjectData, { nil: undefined }), fc.option(hostileObjectData, { nil: undefined }), fc.boolean(),
        async (manifest, uuid, configMap, secret, viaOrphanSweep) => {
          const { metadata, spec } = manifest as unknown as Pod;
          const pod: Pod = { metadata: { ...metadata, name: 'fuzz', namespace: 'default', uid: metadata.uid ?? uuid }, spec };
          if (validatePod({ ...pod, metadata: { ...pod.metadata, uid: uuid } }).length > 0) {
            counts.apiServerRefused++;
            return;
          }
          const view = viewApiPods([pod]);
          if (view.refused.length > 0) {
            counts.uidRefused++;
            expect(view.refused).toEqual([{ origin: 'default/fuzz', reason: expect.stringMatching(/^metadata\.uid: Invalid value: /) }]);
            expect(view.pods).toEqual([]);
            return;
          }
          sources.configMaps.clear();
          sources.secrets.clear();
          if (configMap) sources.configMaps.set('default/c', keyed(configMap));
          if (secret) sources.secrets.set('default/s', keyed(secret));
          expect(await disk.layOutAndCheck(view.pods[0]!, viaOrphanSweep)).toEqual([]);
        },
      ),
      { seed: FUZZ_SEED, numRuns: RUNS },
    );
    const { laidOut, volumesSetUp, stepsFailed } = disk.counts;
    process.stdout.write(`API pod spec fuzz, seed ${FUZZ_SEED}: ${laidOut} laid out (${volumesSetUp} volumes set up, ${stepsFailed} steps failed as reported failures), ${counts.uidRefused} refused for their UID, ${counts.apiServerRefused} that an API server would refuse, ${Date.now() - started} ms\n`);
    expect(counts.uidRefused).toBeGreaterThan(0);
    expect(laidOut).toBeGreaterThan(RUNS / 5);
    expect(volumesSetUp).toBeGreaterThan(RUNS / 5);
  }, 120_000);
});
