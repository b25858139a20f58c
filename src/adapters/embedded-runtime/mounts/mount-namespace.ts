/**
 * Carrying out a mount plan (mount-plan.ts): the runtime's half. It
 * 1. makes what lives on the host: each overlay's upper and work directories in the container's shim
 *    directory (`ns/<i>/`), with the missing mount points made in the upper one; mount points inside
 *    volumes; and, where nothing better can be done, mount points on the host (returned, to record);
 * 2. writes the holder script, which the shim runs as `unshare --mount --propagation slave sh -c …`:
 *    in the new namespace it mounts the overlays (binding back what was mounted below them), then
 *    the binds (`mount --rbind [-o ro] --make-rprivate|--make-rslave`), checks the working directory
 *    and that the command can be found, says `ready` on fd 3 and waits for its stdin to close.
 *    Neighbouring mounts that may share a call (mountCalls: the overlays with nothing to bind back,
 *    then the binds) are made by one mount(8) from a table in fstab's format (`mount --all --fstab`):
 *    each mount(8) costs a fork and exec and its loading and parsing, which a pod with a few volumes
 *    (an overlay for /run/secrets, one for /etc/<config>, a bind each) would pay for every one.
 *    Anything that fails is written to fd 3 instead (the shim's StartContainer error) and it exits;
 * 3. says how to enter it: the shim pins the namespace and starts the container with
 *    `nsenter --mount=… --wd=… [-G gid] [-S uid] -- command…` (shim-namespace.ts), so the container's
 *    environment reaches it without passing through a shell, and its pid is the container's own.
 *
 * The holder runs with an empty environment. nsenter runs as root with the container's, so when the
 * container is to run as another user, the variables that steer the dynamic loader of a root process
 * (LD_PRELOAD and glibc's other "unsecure" ones) are left out of nsenter's environment and handed to
 * the container through `env NAME=value … command` once nsenter has switched user.
 */
import { chmod, chown, mkdir, open, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import { escapeOctal } from '../../host/mount-info.js';
import type { MountTools } from './mount-host.js';
import type { BindStep, MountPlan, MountPointKind, OverlayStep } from './mount-plan.js';
import { HOLDER_READY, type MountNamespaceSpec } from '../shim/shim-protocol.js';

/** execvp's search path when the environment has no PATH. */
const EXECVP_DEFAULT_PATH = '/bin:/usr/bin';
/** glibc's unsecure environment variables (sysdeps/generic/unsecvars.h), besides every LD_*. */
const LOADER_VARIABLES = new Set([
  'GCONV_PATH', 'GETCONF_DIR', 'GLIBC_TUNABLES', 'HOSTALIASES', 'LOCALDOMAIN', 'LOCPATH', 'MALLOC_TRACE',
  'NIS_PATH', 'NLSPATH', 'RESOLV_HOST_CONF', 'RES_OPTIONS', 'TMPDIR', 'TZDIR',
]);

export interface NamespaceContainer {
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  uid?: number;
  gid?: number;
}

/** The user switch nsenter makes and the environment and command it starts, loader variables set aside. */
export interface EnterCommand {
  enterArgs: string[];
  env: Record<string, string>;
  command: string[];
}

/**
 * How nsenter is to start `container`'s command. A user switch is made as libuv's spawn makes it
 * (supplementary groups dropped, gid kept unless given). Refuses the one case `env` cannot express:
 * loader variables with a command whose name contains '='.
 */
export function enterCommand(tools: Pick<MountTools, 'env'>, container: Omit<NamespaceContainer, 'workingDir'>, runtimeGid: number): EnterCommand {
  const switching = container.uid !== undefined || container.gid !== undefined;
  const enterArgs = switching ? ['-G', String(container.gid ?? runtimeGid)] : [];
  if (container.uid !== undefined) enterArgs.push('-S', String(container.uid));
  if (!switching) return { enterArgs, env: container.env, command: container.argv };
  const env: Record<string, string> = {};
  const loader: string[] = [];
  for (const [key, value] of Object.entries(container.env)) {
    if (key.startsWith('LD_') || LOADER_VARIABLES.has(key)) loader.push(`${key}=${value}`);
    else env[key] = value;
  }
  if (loader.length === 0) return { enterArgs, env, command: container.argv };
  if (container.argv[0]?.includes('=')) {
    throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `command ${JSON.stringify(container.argv[0])} contains '=', which cannot be run as run_as_user with ${loader.map((l) => l.split('=')[0]).join(', ')} set in a container with mounts`);
  }
  return { enterArgs, env, command: [tools.env, ...loader, ...container.argv] };
}

/**
 * Makes on the host what the plan needs there (step 1 above) under `nsDir`, and returns the mount
 * points it made on the host itself (outermost directory made), to be recorded.
 */
export async function prepareMountPoints(plan: MountPlan, nsDir: string): Promise<string[]> {
  // The holder writes its mount tables there; the overlays' directories make it too.
  if (plan.overlays.length === 0 && mountCalls(plan, nsDir).some((call) => call.length > 1)) await mkdir(nsDir, { recursive: true });
  for (const [i, overlay] of plan.overlays.entries()) {
    const upper = join(nsDir, String(i), 'upper');
    await mkdir(upper, { recursive: true });
    await mkdir(join(nsDir, String(i), 'work'), { recursive: true });
    // The upper directory's root is the covered directory as the container sees it: same mode and owner.
    await copyModeAndOwner(overlay.at, upper);
    for (const entry of overlay.create) {
      const path = join(upper, entry.rel);
      await makeMountPoint(path, entry.kind);
      if (entry.copyFrom) await copyModeAndOwner(entry.copyFrom, path);
    }
  }
  const created: string[] = [];
  for (const point of plan.createOnHost) {
    const outermost = await mkdir(dirname(point.path), { recursive: true, mode: 0o755 });
    const made = await makeMountPoint(point.path, point.kind);
    if (point.where !== 'host') continue;
    if (outermost !== undefined) created.push(outermost);
    else if (made) created.push(point.path);
  }
  return created;
}

/** Makes an empty directory (0755) or file (0644); false when something was there already. */
async function makeMountPoint(path: string, kind: MountPointKind): Promise<boolean> {
  try {
    if (kind === 'directory') await mkdir(path, { mode: 0o755 });
    else await (await open(path, 'wx', 0o644)).close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function copyModeAndOwner(from: string, to: string): Promise<void> {
  const s = await stat(from);
  await chown(to, s.uid, s.gid);
  await chmod(to, s.mode & 0o7777);
}

export interface HolderInput {
  plan: MountPlan;
  nsDir: string;
  tools: MountTools;
  workingDir: string;
  /** argv[0] of the container's command, and the PATH it is looked up on. */
  command: string;
  path: string | undefined;
}

/** The holder's argv: unshare, then sh with the script (step 2 above). */
export function holderArgv(input: HolderInput): string[] {
  return [input.tools.unshare, '--mount', '--propagation', 'slave', '--', input.tools.sh, '-c', holderScript(input)];
}

export function namespaceSpec(input: HolderInput, enter: EnterCommand): MountNamespaceSpec {
  return { holder: holderArgv(input), nsenter: input.tools.nsenter, enterArgs: enter.enterArgs };
}

export function holderScript({ plan, nsDir, tools, workingDir, command, path }: HolderInput): string {
  const lines = ['klt_fail() { printf \'%s\\n\' "$1" >&3; exit 1; }'];
  /** Runs argv, failing with `message` and what it printed. */
  const run = (argv: string[], message: string) => lines.push(`klt_out=$(${argv.map(shellQuote).join(' ')} 2>&1) || klt_fail ${shellQuote(`${message}: `)}"$klt_out"`);
  // Overlays with something to bind back over them first, each in steps of its own (the binds back
  // go through fd 4); what is mounted after them may go in shared calls (mountCalls).
  for (const [i, overlay] of plan.overlays.entries()) {
    if (overlay.rebind.length === 0) continue;
    const what = `cannot make mount points in ${JSON.stringify(overlay.at)}`;
    // fd 4 keeps the original directory reachable once the overlay covers it.
    lines.push(`exec 4<${shellQuote(overlay.at)} || klt_fail ${shellQuote(`${what}: cannot open it`)}`);
    run([tools.mount, '-t', 'overlay', '-o', overlayOptions(overlay, nsDir, i), 'kubelet-ts', overlay.at], `${what}: overlay mount failed`);
    for (const entry of overlay.rebind) {
      // --no-canonicalize: the source must be walked through fd 4, not resolved to its name (now covered).
      run([tools.mount, '--no-canonicalize', '--rbind', `/proc/self/fd/4/${entry}`, join(overlay.at, entry)], `${what}: cannot bind ${JSON.stringify(join(overlay.at, entry))} back over the overlay`);
    }
    lines.push('exec 4<&-');
  }
  for (const [i, call] of mountCalls(plan, nsDir).entries()) {
    const named = call.map((step) => step.named).join(', ');
    if (call.length === 1) {
      run([tools.mount, ...call[0]!.args], `cannot mount ${named}`);
      continue;
    }
    // printf is the shell's own: the table costs no process. mount(8) cannot read it from a pipe (a here-document).
    const table = join(nsDir, `mounts-${i}.fstab`);
    lines.push(`printf '%s\\n' ${call.map((step) => shellQuote(step.fstab)).join(' ')} >${shellQuote(table)} || klt_fail ${shellQuote(`cannot write ${table}`)}`);
    run([tools.mount, '--all', '--fstab', table], `cannot mount ${named}`);
  }
  lines.push(`cd ${shellQuote(workingDir)} 2>/dev/null || klt_fail ${shellQuote(`failed to start container: working directory ${JSON.stringify(workingDir)} does not exist in the container's mount namespace (the embedded runtime runs containers as host processes and does not create it)`)}`);
  // The exec itself happens in nsenter, after this holder has said it is ready: look the command up now,
  // on the container's PATH, so a missing one is a StartContainer error as without mounts.
  const quoted = shellQuote(command);
  lines.push(`PATH=${shellQuote(path ?? EXECVP_DEFAULT_PATH)}`);
  lines.push(`case ${quoted} in */*) [ -f ${quoted} ] && [ -x ${quoted} ] ;; *) command -v -- ${quoted} >/dev/null ;; esac || klt_fail ${shellQuote(`failed to start ${JSON.stringify(command)}: executable file not found in $PATH`)}`);
  lines.push(`printf '%s\\n' ${HOLDER_READY} >&3`);
  lines.push('read -r klt_ || :');
  return lines.join('\n');
}

/** One mount(8) the holder makes after the overlays it binds mounts back over: as arguments and as a line of fstab. */
export interface MountCallStep {
  /** For the failure message: `host path "…" at container path "…"`, or `an overlay on "…" (…)`. */
  named: string;
  args: string[];
  fstab: string;
  batchable: boolean;
}

/**
 * The plan's overlays with nothing to bind back over them, then its binds, in order, as mount(8)
 * calls: neighbouring batchable steps together, every other one alone. Such an overlay has no mount
 * below it, so no other overlay either, and its mount point is its own: it can go first and share a
 * call. mount(8)'s fstab mode would skip an overlay only if `kubelet-ts` were mounted there already.
 */
export function mountCalls(plan: MountPlan, nsDir: string): MountCallStep[][] {
  const steps: MountCallStep[] = [];
  for (const [i, overlay] of plan.overlays.entries()) {
    if (overlay.rebind.length > 0) continue;
    const options = overlayOptions(overlay, nsDir, i);
    steps.push({
      named: `an overlay on ${JSON.stringify(overlay.at)} (to make the container's mount points there)`,
      args: ['-t', 'overlay', '-o', options, 'kubelet-ts', overlay.at],
      fstab: `kubelet-ts ${escapeOctal(overlay.at)} overlay ${escapeOctal(options)} 0 0`,
      batchable: true,
    });
  }
  for (const bind of plan.binds) {
    steps.push({
      named: `host path ${JSON.stringify(bind.hostPath)} at container path ${JSON.stringify(bind.containerPath)}`,
      args: ['--rbind', ...(bind.readonly ? ['-o', 'ro'] : []), `--make-${bind.propagation}`, bind.hostPath, bind.target],
      fstab: fstabLine(bind),
      batchable: bind.batchable,
    });
  }
  const calls: MountCallStep[][] = [];
  for (const step of steps) {
    const last = calls.at(-1);
    if (step.batchable && last?.[0]?.batchable) last.push(step);
    else calls.push([step]);
  }
  return calls;
}

function overlayOptions(overlay: OverlayStep, nsDir: string, i: number): string {
  const dir = join(nsDir, String(i));
  return `lowerdir=${overlay.at},upperdir=${dir}/upper,workdir=${dir}/work`;
}

/** A bind as a line of fstab, read-only and propagation as options. */
export function fstabLine(bind: BindStep): string {
  return `${escapeOctal(bind.hostPath)} ${escapeOctal(bind.target)} none ${['rbind', ...(bind.readonly ? ['ro'] : []), bind.propagation].join(',')} 0 0`;
}

export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
