/**
 * The container shim, run as `node shim.js <shimsDir>` in that directory by the embedded runtime, detached (its
 * own session) and unref'd, so it survives a kubelet-ts restart — the role containerd-shim plays for
 * containerd. One shim serves every container of the shims directory: a Node process costs tens of MiB,
 * which a process per container paid again for each one.
 *
 * Why a shim at all: if the containers' stdout/stderr were piped into the kubelet process, a kubelet
 * restart would close the pipes and the containers would die of SIGPIPE or lose their output. The shim
 * owns the pipes instead, and is the containers' parent, so it sees their exit statuses.
 * 1. It listens on shim.sock in its working directory, writes shim.json (its pid and start time) and
 *    says `ready` on stdout, once (the runtime that started it stops reading there).
 * 2. A connection sends one line, a container's directory (relative, one name): the shim runs that
 *    container (shim-container.ts) and answers one ShimReport line.
 * 3. SIGUSR2 re-opens every container's log (ReopenContainerLog after the kubelet rotated one).
 * 4. Once it has no container left it stops listening, and exits when the connections it took are done
 *    (a runtime that finds it gone starts another). A shim nobody asks anything exits after a while.
 * A runtime restarted on the same state directory finds it through shim.json and goes on using it.
 */
import { chmodSync, unlinkSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { writeFileAtomicSync } from './atomic-file.js';
import { identifyProcess } from './proc-stat.js';
import { runContainer } from './shim-container.js';
import { REOPEN_LOG_SIGNAL, SHIM_FILE, SHIM_READY, SHIM_SOCKET, type ShimRecord, type ShimReport } from './shim-protocol.js';

/** How long a shim with no container waits for its first before it exits. */
const FIRST_CONTAINER_TIMEOUT_MS = 30_000;
/** A container directory: one name, as the runtime makes them (hex ids). */
const CONTAINER_DIR = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function diagnose(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

export function runShim(): void {
  const running = new Set<string>();
  const reopeners = new Set<() => void>();
  process.on(REOPEN_LOG_SIGNAL, () => {
    for (const reopen of reopeners) reopen();
  });

  let closing = false;
  let closed = false;
  const retireIfIdle = (): void => {
    if (running.size > 0) return;
    if (closed) process.exit(0);
    if (closing) return;
    closing = true;
    // The connections already taken still get their containers: 'close' waits for them to end.
    server.close(() => {
      closed = true;
      if (running.size === 0) process.exit(0);
    });
  };

  const serve = (socket: Socket, dir: string): void => {
    const answer = (line: ShimReport): void => {
      socket.end(`${JSON.stringify(line)}\n`);
    };
    if (!CONTAINER_DIR.test(dir) || running.has(dir)) return answer({ ok: false, error: `shim: refused container directory ${JSON.stringify(dir)}` });
    running.add(dir);
    clearTimeout(firstContainer);
    void runContainer(dir, {
      report: answer,
      diagnose: (message) => diagnose(`${dir}: ${message}`),
      onReopenLog: (reopen) => {
        reopeners.add(reopen);
        return () => reopeners.delete(reopen);
      },
    }).catch((err: unknown) => {
      diagnose(`${dir}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
      answer({ ok: false, error: `shim: ${err instanceof Error ? err.message : String(err)}` });
    }).finally(() => {
      running.delete(dir);
      retireIfIdle();
    });
  };

  const server = createServer((socket) => {
    let buffered: string | null = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      if (buffered === null) return;
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      const dir = buffered.slice(0, newline);
      buffered = null;
      serve(socket, dir);
    });
  });
  const firstContainer = setTimeout(retireIfIdle, FIRST_CONTAINER_TIMEOUT_MS);
  try {
    unlinkSync(SHIM_SOCKET); // a shim killed before it could close its socket
  } catch {
    // none left over
  }
  server.on('error', (err) => {
    diagnose(`control socket: ${err.message}`);
    process.exit(1);
  });
  server.listen(SHIM_SOCKET, () => {
    chmodSync(SHIM_SOCKET, 0o600);
    const record: ShimRecord = { pid: process.pid, startTime: identifyProcess(process.pid)?.startTime ?? null };
    writeFileAtomicSync(SHIM_FILE, JSON.stringify(record));
    try {
      writeSync(1, `${SHIM_READY}\n`);
    } catch {
      // The runtime went away before reading (EPIPE): shim.json says the same thing.
    }
  });
}

if (process.argv[1] !== undefined && /shim\.[cm]?js$/.test(process.argv[1])) runShim();
