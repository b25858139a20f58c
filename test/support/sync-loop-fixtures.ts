/** Inputs and children for syncLoop tests that replace its sources and effects. */
import { fromCallback } from 'xstate';
import type { DeadContainersRemoveRequested, PodSandboxesRemoveRequested, SyncLoopInput } from '../../src/machines/sync-loop.machine.js';

/** A pod config input with no file or http source, for tests that replace the podConfig child anyway. */
export const noPodSources: SyncLoopInput['podConfig'] = {
  staticPodPath: '', fileCheckFrequencyMs: 20_000, staticPodURL: '', staticPodURLHeader: {}, httpCheckFrequencyMs: 20_000,
};

/** Deletors that remove nothing: the tests that use them look at what the syncLoop decides, not at removals. */
export const inertDeletors = {
  containerDeletor: fromCallback<DeadContainersRemoveRequested>(() => {}),
  sandboxDeletor: fromCallback<PodSandboxesRemoveRequested>(() => {}),
};
