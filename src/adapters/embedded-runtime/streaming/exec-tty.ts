/**
 * An exec under a TTY: the command runs on a real pseudo-terminal (node-pty: forkpty, so the command
 * is a session leader with the terminal as its controlling tty), the client's resize events become
 * TIOCSWINSZ (and SIGWINCH), its stdin is typed into the terminal and the terminal's output is its
 * stdout (a terminal has no separate stderr). The output respects backpressure: the terminal is
 * paused while the client is behind. node-pty is loaded on first use, so a runtime that never runs
 * an exec -t does not load the native addon.
 */
import type { IPty } from 'node-pty';
import type { RemoteCommandSession } from '../../stream-protocols/sessions.js';
import type { ExecLaunch } from './exec.js';
import { killGroup } from './exec-session.js';

/** What a terminal starts as until the client says otherwise (kubectl sends its size first). */
const DEFAULT_COLUMNS = 80;
const DEFAULT_ROWS = 24;
/** ^D: what closing stdin means to a program reading a terminal in canonical mode. */
const END_OF_TRANSMISSION = '\x04';

/** The exit code, or why the command could not be started. */
export async function runOnTerminal(launch: ExecLaunch, session: RemoteCommandSession): Promise<number | string> {
  let pty: IPty;
  try {
    const { spawn } = await import('node-pty');
    const [file, ...args] = launch.argv as [string, ...string[]];
    pty = spawn(file, args, {
      name: launch.env.TERM ?? 'xterm',
      cols: DEFAULT_COLUMNS,
      rows: DEFAULT_ROWS,
      cwd: launch.cwd,
      env: launch.env,
      encoding: null,
      ...(launch.uid !== undefined ? { uid: launch.uid } : {}),
      ...(launch.gid !== undefined ? { gid: launch.gid } : {}),
    });
  } catch (err) {
    return (err as Error).message;
  }
  const terminal = pty;
  return new Promise((resolve) => {
    const clientGone = (): void => killGroup(terminal.pid);
    session.closed.addEventListener('abort', clientGone, { once: true });
    session.onResize(({ width, height }) => {
      if (width > 0 && height > 0) terminal.resize(width, height);
    });
    const out = session.stdout;
    if (out) {
      out.on('drain', () => terminal.resume());
      terminal.onData((data) => {
        if (!out.write(data)) terminal.pause();
      });
    }
    session.stdin?.on('data', (chunk: Buffer) => terminal.write(chunk));
    session.stdin?.on('end', () => terminal.write(END_OF_TRANSMISSION));
    terminal.onExit(({ exitCode, signal }) => {
      session.closed.removeEventListener('abort', clientGone);
      killGroup(terminal.pid);
      // Killed by a signal: 128 + its number, the shell's convention that exit-code.ts follows.
      resolve(signal ? 128 + signal : exitCode);
    });
  });
}
