/**
 * A stand-in runtime for streaming tests: runs a RemoteCommandSession's command as a host process
 * (sh, cat, …) with its stdin, stdout and stderr wired to the session's, and finishes the session
 * with the exit code. Real processes make the bytes and exit codes real without a container.
 */
import { spawn } from 'node:child_process';
import type { RemoteCommandSession } from '../../src/adapters/stream-protocols/sessions.js';

export function runOnHost(command: readonly string[], session: RemoteCommandSession): void {
  const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  if (session.stdin) session.stdin.pipe(child.stdin);
  else child.stdin.end();
  if (session.stdout) child.stdout.pipe(session.stdout, { end: false });
  else child.stdout.resume();
  // Under a TTY there is one output: stderr joins stdout, as a terminal would have it.
  const errOut = session.stderr ?? (session.tty ? session.stdout : null);
  if (errOut) child.stderr.pipe(errOut, { end: false });
  else child.stderr.resume();
  session.closed.addEventListener('abort', () => child.kill('SIGKILL'));
  child.once('error', (error) => session.finish({ kind: 'failed', message: error.message }));
  child.once('close', (code, signal) => session.finish({ kind: 'exited', exitCode: code ?? (signal ? 128 + 9 : 1), command }));
}
