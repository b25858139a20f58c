/**
 * The runtime's cgroup driver, asked as Go's getCgroupDriverFromCRI asks it: RuntimeConfig, tried
 * three times two seconds apart while it fails for a reason other than UNIMPLEMENTED (a runtime
 * still starting); UNIMPLEMENTED (containerd 1.6) answers at once. Still failing after the third
 * try stops start-up, as in Go.
 */
import { KubeletError, serializeError } from '../../domain/errors.js';
import type { RuntimeCgroupDriverAnswer } from '../../domain/runtime/cgroup-driver-agreement.js';
import type { CriRuntimeService } from '../../ports/cri.js';

const TRIES = 3;
export const RUNTIME_CONFIG_RETRY_MS = 2000;

export async function askRuntimeCgroupDriver(runtime: Pick<CriRuntimeService, 'runtimeConfig'>, sleep: (ms: number) => Promise<void>): Promise<RuntimeCgroupDriverAnswer> {
  if (!runtime.runtimeConfig) return 'unimplemented';
  let lastError: unknown;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    if (attempt > 0) await sleep(RUNTIME_CONFIG_RETRY_MS);
    try {
      const linux = await runtime.runtimeConfig();
      return linux === null ? 'no-linux-config' : { cgroupDriver: String(linux.cgroup_driver) };
    } catch (err) {
      if (serializeError(err).code === 'KLT_ERR_CRI_UNIMPLEMENTED') return 'unimplemented';
      lastError = err;
    }
  }
  throw new KubeletError('KLT_ERR_CRI_FAILED', `RuntimeConfig from the container runtime failed: ${serializeError(lastError).message}`, { cause: lastError });
}
