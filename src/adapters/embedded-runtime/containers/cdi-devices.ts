/**
 * CRI's CDI_devices on the embedded runtime: each name is resolved against the spec directories'
 * specs, and the edits' environment entries are set in the container (over its own, as a CDI
 * runtime does). Its containers are host processes that see the host's /dev and run no OCI hooks,
 * so a device whose edits add device nodes, mounts, hooks or groups is refused, naming what, rather
 * than started without them. A name no spec resolves fails CreateContainer, as with containerd.
 */
import { KubeletError } from '../../../domain/errors.js';
import { resolveCdiDevices } from '../../../domain/cdi/cdi-registry.js';
import type { ContainerEdits } from '../../../domain/cdi/cdi-spec.js';
import { readCdiSpecs } from '../../fs/cdi-spec-reader.js';
import type { Logger } from '../../../log.js';

const UNSUPPORTED: readonly (keyof ContainerEdits)[] = ['deviceNodes', 'mounts', 'hooks', 'additionalGids'];

/** The environment the devices add, or a refusal (KLT_ERR_CRI_FAILED) naming what cannot be applied. */
export async function cdiDeviceEnv(names: readonly string[], specDirs: readonly string[] | undefined, logger: Logger): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  const { specs, problems } = await readCdiSpecs(specDirs);
  for (const problem of problems) logger.warn({ problem }, 'CDI spec left out');
  const resolved = resolveCdiDevices(specs, names);
  if (!resolved.ok) throw new KubeletError('KLT_ERR_CRI_FAILED', `CDI device injection failed: ${resolved.error}`);
  const unsupported = UNSUPPORTED.filter((edit) => (resolved.edits[edit] ?? []).length > 0);
  if (unsupported.length > 0) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `CDI devices ${names.join(', ')} add ${unsupported.join(', ')}: the embedded runtime applies CDI environment edits only`);
  }
  const env: Record<string, string> = {};
  for (const entry of resolved.edits.env ?? []) {
    const eq = entry.indexOf('=');
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}
