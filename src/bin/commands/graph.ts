/**
 * `kubelet-ts graph [--machine NAME] [--format mermaid|svg]`: the statecharts drawn from the
 * machine definitions themselves, for documentation. Without --machine every machine is written,
 * one after another (mermaid: one diagram each, separated by a blank line; svg needs --machine).
 */
import { toMermaid } from '../../domain/graph/mermaid.js';
import type { CommandIo } from '../io.js';
import { commandArgsOrExit } from './command-args.js';
import { MACHINES, machineGraphs } from '../../machines/index.js';

const USAGE = `usage: kubelet-ts graph [--machine NAME] [--format mermaid|svg]\nmachines: ${Object.keys(MACHINES).join(', ')}\n`;

export async function runGraphCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = commandArgsOrExit(argv, { machine: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 0, { name: 'graph', usage: USAGE, io });
  if (typeof args === 'number') return args;
  const machine = args.values.machine ?? null;
  const format = args.values.format ?? 'mermaid';
  if (format !== 'mermaid' && format !== 'svg') {
    io.stderr(`graph: --format must be mermaid or svg, not ${JSON.stringify(format)}\n`);
    return 2;
  }
  const graphs = machineGraphs().filter((g) => machine === null || g.machine === machine);
  if (graphs.length === 0) {
    io.stderr(`graph: no machine named ${JSON.stringify(machine)}\n${USAGE}`);
    return 2;
  }
  if (format === 'mermaid') {
    io.stdout(graphs.map(toMermaid).join('\n'));
    return 0;
  }
  if (graphs.length > 1) {
    io.stderr('graph: --format svg draws one machine: name it with --machine\n');
    return 2;
  }
  // The layout engine is loaded only for SVG output (the daemon imports this module for its graphs).
  const { renderInProcess } = await import('../../adapters/visualizer/chart-renderer.js');
  io.stdout(await renderInProcess(graphs[0]!));
  return 0;
}
