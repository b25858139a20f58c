/**
 * `kubelet-ts runtime serve --listen unix:///PATH [--state-dir DIR] [--v N]`: the embedded CRI runtime
 * as a process of its own, for a kubelet-ts (or crictl) started separately. Serves until SIGTERM or
 * SIGINT, then stops serving and exits 0. Containers keep running after it exits, as they do when
 * containerd stops; the next `serve` on the same state dir adopts them.
 *
 * Exit codes: 0 after a clean stop, 1 when the runtime cannot start, 2 for a bad command line.
 */
import { parseCriEndpoint } from '../../adapters/cri-grpc/endpoint.js';
import { startEmbeddedRuntime } from '../../adapters/embedded-runtime/index.js';
import { createRootLogger } from '../../log.js';
import type { CommandIo } from '../io.js';
import { parseCommandArgs, UsageError } from './command-args.js';

/** The daemon's --root-dir default joined with the same subdirectory the in-process runtime uses. */
export const DEFAULT_RUNTIME_STATE_DIR = '/var/lib/kubelet/embedded-runtime';

export const RUNTIME_USAGE = `Usage: kubelet-ts runtime serve --listen unix:///PATH [--state-dir DIR] [--v N]

Serves the embedded CRI runtime (runtime.v1) on a unix socket. Containers run as host processes:
no isolation, no images (names only), host network only, no resource limits.

Flags:
  --listen unix:///PATH   socket to serve on (required)
  --state-dir DIR         where sandboxes, containers and pulled image names are kept
                          (default ${DEFAULT_RUNTIME_STATE_DIR})
  --v N                   log verbosity, as the kubelet's --v (default 0)
`;

export interface RuntimeCommandIo extends CommandIo {
  /** Subscribe to SIGTERM/SIGINT; returns an unsubscribe. The process's signals when absent. */
  onSignal?: (handler: (signal: string) => void) => () => void;
}

interface ServeOptions { listen: string; stateDir: string; verbosity: number }

const SERVE_FLAGS = {
  listen: { type: 'string' },
  'state-dir': { type: 'string' },
  v: { type: 'string', short: 'v' },
} as const;

export async function runRuntimeCommand(argv: string[], io: RuntimeCommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(RUNTIME_USAGE);
    return 0;
  }
  if (sub !== 'serve') {
    io.stderr(`kubelet-ts runtime: ${sub === undefined ? 'missing subcommand' : `unknown subcommand ${JSON.stringify(sub)}`}\n\n${RUNTIME_USAGE}`);
    return 2;
  }
  let options: ServeOptions;
  try {
    options = parseServeFlags(rest);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`kubelet-ts runtime serve: ${err.message}\n\n${RUNTIME_USAGE}`);
    return 2;
  }
  return serve(options, io);
}

export function parseServeFlags(argv: string[]): ServeOptions {
  const { values } = parseCommandArgs(argv, SERVE_FLAGS, 0);
  const listen = values.listen;
  if (listen === undefined) throw new UsageError('--listen is required');
  try {
    parseCriEndpoint(listen);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const verbosity = Number(values.v ?? '0');
  if (!Number.isInteger(verbosity) || verbosity < 0) throw new UsageError(`--v must be a non-negative integer, not ${values.v}`);
  return { listen, stateDir: values['state-dir'] ?? DEFAULT_RUNTIME_STATE_DIR, verbosity };
}

async function serve(options: ServeOptions, io: RuntimeCommandIo): Promise<number> {
  // Logs go where the command's other diagnostics go (the process's stderr, or the test's capture).
  const logger = createRootLogger({ verbosity: options.verbosity, destination: { write: (line: string) => io.stderr(line) } });
  const { socketPath } = parseCriEndpoint(options.listen);
  // Subscribe before starting, so a signal that arrives during start-up is not lost.
  let stopRequested: (signal: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => { stopRequested = resolve; });
  const unsubscribe = (io.onSignal ?? onProcessSignal)((signal) => stopRequested(signal));
  try {
    let runtime;
    try {
      runtime = await startEmbeddedRuntime({ socketPath, stateDir: options.stateDir, logger });
    } catch (err) {
      io.stderr(`kubelet-ts runtime serve: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    io.stderr(`kubelet-ts runtime: serving CRI on ${runtime.endpoint} (state dir ${options.stateDir})\n`);
    const signal = await stopped;
    logger.info({ signal }, 'Stopping embedded CRI runtime');
    await runtime.close();
    return 0;
  } finally {
    unsubscribe();
  }
}

function onProcessSignal(handler: (signal: string) => void): () => void {
  const term = (): void => handler('SIGTERM');
  const int = (): void => handler('SIGINT');
  process.on('SIGTERM', term);
  process.on('SIGINT', int);
  return () => {
    process.off('SIGTERM', term);
    process.off('SIGINT', int);
  };
}
