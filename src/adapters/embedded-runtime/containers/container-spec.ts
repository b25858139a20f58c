/**
 * How a CreateContainer config becomes the host process the shim will start: argv, environment,
 * user and log path. There are no image configs, only names, so the image's part is a default.
 */
import { hostname, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import type { ContainerConfig__Output } from '../../../generated/runtime/v1/ContainerConfig.js';
import type { SandboxRecord } from '../state/records.js';

/** The image's default entrypoint, for every image: there are no image configs, only names. */
export const DEFAULT_ENTRYPOINT: readonly string[] = ['sh'];
/** The PATH an image config would give (busybox's and most distributions'). */
export const DEFAULT_CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function containerArgv(config: ContainerConfig__Output): string[] {
  const command = config.command ?? [];
  const args = config.args ?? [];
  return command.length > 0 ? [...command, ...args] : [...DEFAULT_ENTRYPOINT, ...args];
}

/**
 * The image's env (PATH), then HOSTNAME, then the config's envs, later ones winning, as containerd
 * builds it; then HOME when still unset, which runc fills in from the user's passwd entry. Nothing is
 * inherited from kubelet-ts's own environment.
 */
export function containerEnv(config: ContainerConfig__Output, sandbox: SandboxRecord): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_CONTAINER_PATH, HOSTNAME: sandbox.hostname || hostname() };
  for (const { key, value } of config.envs ?? []) {
    env[key] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  env.HOME ??= homeOfCurrentUser();
  return env;
}

function homeOfCurrentUser(): string {
  try {
    return userInfo().homedir || '/';
  } catch {
    return '/'; // no passwd entry for our uid
  }
}

/**
 * run_as_user / run_as_group become the process's uid/gid (switching needs kubelet-ts to run as root;
 * without the privilege StartContainer fails with EPERM). run_as_username would need the image's
 * /etc/passwd, which does not exist here, so it is refused rather than silently run as someone else.
 */
export function containerUser(config: ContainerConfig__Output): { run_as_user?: number; run_as_group?: number } {
  const sc = config.linux?.security_context;
  if (sc?.run_as_username) {
    throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `run_as_username ${JSON.stringify(sc.run_as_username)} is not supported by the embedded runtime (no image /etc/passwd); use a numeric run_as_user`);
  }
  const user = sc?.run_as_user ? Number(sc.run_as_user.value) : undefined;
  const group = sc?.run_as_group ? Number(sc.run_as_group.value) : undefined;
  return {
    ...(user !== undefined && Number.isInteger(user) && user >= 0 ? { run_as_user: user } : {}),
    ...(group !== undefined && Number.isInteger(group) && group >= 0 ? { run_as_group: group } : {}),
  };
}

/** The config's log path (relative to the sandbox's log directory), absolute; '' for none. */
export function containerLogPath(logDirectory: string, logPath: string): string {
  if (!logPath) return '';
  if (isAbsolute(logPath)) return logPath;
  return logDirectory ? join(logDirectory, logPath) : '';
}
