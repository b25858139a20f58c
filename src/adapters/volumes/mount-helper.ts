/**
 * mount(8) and umount(8) run by one long-lived shell instead of spawned from the kubelet.
 *
 * Why: Node spawns a child by forking the whole kubelet on its event loop, and waits there until
 * the child has exec'd, a cost that grows with the kubelet's memory. A burst of pods with a Secret
 * and a `kube-api-access` volume each makes two tmpfs mounts a pod, which would hold the loop for a
 * noticeable time (docs/FINDINGS.md). In that time every other volume's set-up, the API watches and
 * the pod workers wait.
 * Go's exec of mount costs its caller next to nothing (a vfork). A small shell (dash) forks cheaply;
 * it runs each command in the background and answers on one line when it ends, so mounts run in
 * parallel, off the kubelet's thread.
 *
 * Protocol, one line each way: `<id>\t<command>\t<arg>...` in; `<id> <exit code>` out, followed by
 * the command's output (newlines made spaces) when it failed. Lines shorter than PIPE_BUF are
 * written whole, so answers from parallel commands never interleave. The shell runs nothing but
 * mount and umount. An argument holding a tab or a newline cannot be framed; it is refused here and
 * the caller spawns the command itself. If the shell dies, what was in flight fails and the next
 * call starts a new shell. With the kubelet gone the shell reads end-of-file and exits.
 *
 * `mount-table` takes fstab(5) lines instead of arguments: the shell writes them to a file in a
 * directory of its own (mktemp -d, removed when it exits) and runs `mount --all --fstab` on it, so
 * many mounts cost one mount(8) (mount(8) cannot read a table from a pipe). Without such a
 * directory (no writable TMPDIR) every table fails, and mount and umount work as before.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

export type MountCommand = 'mount' | 'umount';

/** A command that exited non-zero: its exit code and what it printed. */
export class MountCommandError extends Error {
  constructor(readonly exitCode: number, readonly output: string) {
    super(output === '' ? `exit status ${exitCode}` : output);
    this.name = 'MountCommandError';
  }
}

export interface MountHelper {
  /** Runs the command; rejects with MountCommandError when it fails, with Error when the shell does. */
  run(command: MountCommand, args: readonly string[]): Promise<void>;
  /** Mounts what the fstab(5) lines say in one `mount --all --fstab`; rejects as `run` does (exit status 64: some mounted). */
  mountTable(lines: readonly string[]): Promise<void>;
  /** Whether `run` can carry these arguments (no tab, no newline). */
  canCarry(args: readonly string[]): boolean;
  /** Stops the shell; commands in flight are left to finish and their answers dropped. */
  close(): void;
}

const SCRIPT = `set -f
tab=$(printf '\\t')
tables=$(mktemp -d 2>/dev/null) || tables=
[ -n "$tables" ] && trap 'rm -rf "$tables"' EXIT
while IFS= read -r line; do
  IFS=$tab
  set -- $line
  IFS=' '
  id=$1; shift
  case $1 in
    mount|umount|mount-table) ;;
    *) printf '%s 127 refused: %s\\n' "$id" "$1"; continue ;;
  esac
  (
    if [ "$1" = mount-table ] && [ -z "$tables" ]; then
      out='no directory for mount tables: mktemp -d failed'
      rc=1
    elif [ "$1" = mount-table ]; then
      shift
      printf '%s\\n' "$@" > "$tables/$id.fstab"
      out=$(mount --all --fstab "$tables/$id.fstab" 2>&1)
      rc=$?
      rm -f "$tables/$id.fstab"
    else
      out=$("$@" 2>&1)
      rc=$?
    fi
    if [ "$rc" -eq 0 ]; then printf '%s 0\\n' "$id"
    else printf '%s %s %s\\n' "$id" "$rc" "$(printf '%s' "$out" | tr '\\n' ' ')"
    fi
  ) &
done
`;

interface Pending { resolve: () => void; reject: (error: Error) => void }

export function createMountHelper(shell = '/bin/sh'): MountHelper {
  let child: ChildProcessWithoutNullStreams | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(error: Error): void {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  }

  function answer(line: string): void {
    const [idText, codeText, ...rest] = line.split(' ');
    const p = pending.get(Number(idText));
    if (p === undefined) return;
    pending.delete(Number(idText));
    if (pending.size === 0 && child !== undefined) holdOpen(child, false);
    const code = Number(codeText);
    if (code === 0) p.resolve();
    else p.reject(new MountCommandError(code, rest.join(' ').trim()));
  }

  function start(): ChildProcessWithoutNullStreams {
    const shellProcess = spawn(shell, ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    const onGone = (why: string) => {
      if (child !== shellProcess) return;
      child = undefined;
      failAll(new Error(`the mount helper shell ${why}`));
    };
    shellProcess.on('error', (error) => onGone(`failed: ${error.message}`));
    shellProcess.on('exit', (code, signal) => onGone(`exited (${signal ?? code})`));
    shellProcess.stdin.on('error', () => undefined); // EPIPE after the shell died: reported by 'exit'
    createInterface({ input: shellProcess.stdout }).on('line', answer);
    shellProcess.stderr.resume();
    holdOpen(shellProcess, false);
    return shellProcess;
  }

  /**
   * An idle shell never keeps the process alive; one with answers to come does. The child and its
   * pipes (sockets, though their stream types do not say so) each hold the event loop open.
   */
  function holdOpen(shellProcess: ChildProcessWithoutNullStreams, hold: boolean): void {
    for (const handle of [shellProcess, shellProcess.stdin, shellProcess.stdout, shellProcess.stderr]) {
      const method: unknown = Reflect.get(handle, hold ? 'ref' : 'unref');
      if (typeof method === 'function') method.call(handle);
    }
  }

  const canCarry = (args: readonly string[]) => args.every((a) => a !== '' && !/[\t\n]/.test(a));

  function send(verb: MountCommand | 'mount-table', args: readonly string[]): Promise<void> {
    if (!canCarry(args)) return Promise.reject(new Error('an argument holds a tab or a newline, or is empty'));
    child ??= start();
    if (pending.size === 0) holdOpen(child, true);
    const id = nextId++;
    const done = new Promise<void>((resolve, reject) => pending.set(id, { resolve, reject }));
    child.stdin.write(`${[String(id), verb, ...args].join('\t')}\n`);
    return done;
  }

  return {
    canCarry,
    run: (command, args) => send(command, args),
    mountTable: (lines) => send('mount-table', lines),
    close() {
      const shellProcess = child;
      child = undefined;
      failAll(new Error('the mount helper was closed'));
      shellProcess?.stdin.end();
    },
  };
}
