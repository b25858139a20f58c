/**
 * `kubelet-ts`: our own subcommands are the first word (`config`, `explain`, `replay`, `report`, `runtime`);
 * anything else is the kubelet daemon's command line, under the Go kubelet's flags.
 */
import { parseCommandLine } from '../domain/config/command-line.js';
import { formatUsage } from '../domain/config/usage.js';
import { versionLine, rawVersionInfo } from '../domain/config/version.js';
import { processCommandIo, type CommandIo } from './io.js';

type Command = (argv: string[], io: CommandIo) => Promise<number>;

// Each subcommand, and the daemon, is loaded when it is run: the daemon's start-up does not compile
// the replay, report, graph and visualizer code, nor a subcommand the daemon's.
const SUBCOMMANDS: Record<string, Command> = {
  config: async (argv, io) => (await import('./commands/config.js')).runConfigCommand(argv, io),
  explain: async (argv, io) => (await import('./commands/explain.js')).runExplainCommand(argv, io),
  graph: async (argv, io) => (await import('./commands/graph.js')).runGraphCommand(argv, io),
  replay: async (argv, io) => (await import('./commands/replay.js')).runReplayCommand(argv, io),
  report: async (argv, io) => (await import('./commands/report.js')).runReportCommand(argv, io),
  runtime: async (argv, io) => (await import('./commands/runtime.js')).runRuntimeCommand(argv, io),
  visualize: async (argv, io) => (await import('./commands/visualize.js')).runVisualizeCommand(argv, io),
};

// Subcommands named in the docs but not built yet: answered with a message saying so.
const LATER: Record<string, string> = {};

export async function main(argv: string[], io: CommandIo = processCommandIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first !== undefined && SUBCOMMANDS[first]) return SUBCOMMANDS[first](rest, io);
  if (first !== undefined && LATER[first]) {
    io.stderr(`kubelet-ts ${first}: ${LATER[first]}\n`);
    return 1;
  }
  // --help and --version answer at once; every other problem with the command line is found by the
  // supervisor's command.parse phase, so it is journaled like any other start-up failure.
  const quick = tryParse(argv);
  if (quick?.help) {
    io.stdout(formatUsage());
    return 0;
  }
  if (quick?.version) {
    io.stdout((quick.versionRaw ? rawVersionInfo() : versionLine()) + '\n');
    return 0;
  }
  return (await import('./daemon.js')).runDaemon(argv);
}

function tryParse(argv: string[]) {
  try {
    return parseCommandLine(argv);
  } catch {
    return null;
  }
}
