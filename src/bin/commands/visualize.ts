/**
 * `kubelet-ts visualize LOG [--listen 127.0.0.1:PORT]`: time travel over a recorded event log.
 * Serves the visualizer page in replay mode on loopback (default 127.0.0.1:10261, so it can run
 * next to a live daemon's debug server on 10260) until SIGINT/SIGTERM. Nothing leaves the machine.
 */
import { startDebugServer, type DebugServer } from '../../adapters/debug-server/server.js';
import { staticFeed } from '../../adapters/debug-server/journal-feed.js';
import type { CommandIo } from '../io.js';
import { commandArgsOrExit } from './command-args.js';
import { machineGraphs } from '../../machines/index.js';
import { readLogForCommand } from './read-log.js';

export const DEFAULT_VISUALIZE_LISTEN = '127.0.0.1:10261';
const USAGE = 'usage: kubelet-ts visualize LOG [--listen 127.0.0.1:PORT]\n';

export interface VisualizeOptions {
  /** Resolves when the server should stop; defaults to the first SIGINT or SIGTERM. */
  until?: (server: DebugServer) => Promise<void>;
}

export async function runVisualizeCommand(argv: string[], io: CommandIo, opts: VisualizeOptions = {}): Promise<number> {
  const args = commandArgsOrExit(argv, { listen: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 1, { name: 'visualize', usage: USAGE, io });
  if (typeof args === 'number') return args;
  const listen = args.values.listen ?? DEFAULT_VISUALIZE_LISTEN;
  const words = args.positionals;
  if (words.length !== 1) {
    io.stderr(USAGE);
    return 2;
  }
  const log = readLogForCommand(words[0], 'visualize', io);
  if (!log) return 2;
  let server: DebugServer;
  try {
    server = await startDebugServer(listen, {
      actors: () => [],
      pods: () => ({ pods: [] }),
      journal: () => ({ path: words[0]!, records: log.records.length }),
      visualizer: { mode: 'replay', graphs: machineGraphs(), feed: staticFeed(log.records), title: `${words[0]} (node ${log.header.nodeName}, ${log.header.startTime})` },
    });
  } catch (err) {
    io.stderr(`visualize: ${(err as Error).message}\n`);
    return 1;
  }
  io.stdout(`Visualizer listening on http://${server.address}/ (replay of ${log.records.length} records; Ctrl-C stops)\n`);
  await (opts.until ?? untilSignal)(server);
  await server.close();
  return 0;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
