/**
 * Go's wipe of the node's ResourceSlices (domain/dra/slice-wipe.ts), in the background, at start
 * for every driver and later for one: it waits for the Node to exist (the slices name it), deletes
 * the slices naming it, and tries again with the back-off while the API server refuses or is away.
 * Stops when asked (the kubelet stopping, or a plugin of the driver back).
 */
import { nodeSlicesSelector, SLICE_WIPE_TRIES, sliceWipeWaitMs } from '../../domain/dra/slice-wipe.js';
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { ResourceClaimApi } from '../../ports/apiserver.js';

export interface SliceWipeDeps {
  api: ResourceClaimApi & { getNode(name: string): Promise<unknown> };
  nodeName: string;
  logger: Logger;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

const isNotFound = (err: unknown) => err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND';

/** Resolves once the slices (of `driver` only, when given) are gone, the tries are used up, or `signal` aborts. */
export async function wipeNodeResourceSlices(deps: SliceWipeDeps, signal: AbortSignal, driver?: string): Promise<void> {
  const selector = nodeSlicesSelector(deps.nodeName, driver);
  for (let tries = 1; tries <= SLICE_WIPE_TRIES && !signal.aborted; tries++) {
    if (await nodeExists(deps)) {
      try {
        await deps.api.deleteResourceSlices(selector);
        deps.logger.debug({ fieldSelector: selector }, 'Deleted ResourceSlices');
        return;
      } catch (err) {
        if (isNotFound(err)) return; // nothing to delete
        deps.logger.info({ err, fieldSelector: selector }, 'Deleting ResourceSlice failed, retrying');
      }
    }
    await deps.sleep(sliceWipeWaitMs(tries, deps.random()), signal).catch(() => undefined);
  }
}

/** Whether the Node is registered: the slices to delete name it. A failure other than its absence is logged. */
async function nodeExists(deps: SliceWipeDeps): Promise<boolean> {
  try {
    await deps.api.getNode(deps.nodeName);
    return true;
  } catch (err) {
    if (!isNotFound(err)) deps.logger.warn({ err }, 'Unexpected error checking for node');
    return false;
  }
}
