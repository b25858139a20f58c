/**
 * `kubelet-ts`: our own subcommands are the first word (`config`, `replay`, `report`, `runtime`);
 * anything else is the kubelet daemon's command line, under the Go kubelet's flags.
 */
import { parseCommandLine } from '../domain/config/command-line.js';
import { formatUsage } from '../domain/config/usage.js';
import { versionLine, rawVersionInfo } from '../domain/config/version.js';
import { runConfigCommand } from './commands/config.js';
import { runGraphCommand } from './commands/graph.js';
import { runReplayCommand } from './commands/replay.js';
import { runReportCommand } from './commands/report.js';
import { runRuntimeCommand } from './commands/runtime.js';
import { runVisualizeCommand } from './commands/visualize.js';
import { runDaemon } from './daemon.js';
import { processCommandIo, type CommandIo } from './io.js';

const SUBCOMMANDS: Record<string, (argv: string[], io: CommandIo) => Promise<number>> = {
  config: runConfigCommand,
  graph: runGraphCommand,
  replay: runReplayCommand,
  report: runReportCommand,
  runtime: runRuntimeCommand,
  visualize: runVisualizeCommand,
};

// Subcommands named in the docs but not built yet: answered with a pointer to their issue.
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
  return runDaemon(argv);
}

function tryParse(argv: string[]) {
  try {
    return parseCommandLine(argv);
  } catch {
    return null;
  }
}
