/**
 * `kubelet-ts graph [--machine NAME] [--format mermaid|svg]`: the statecharts drawn from the
 * machine definitions themselves, for documentation. Without --machine every machine is written,
 * one after another (mermaid: one diagram each, separated by a blank line; svg needs --machine).
 */
import { toMermaid } from '../../domain/graph/mermaid.js';
import type { CommandIo } from '../io.js';
import { MACHINES, machineGraphs } from '../../machines/index.js';

const USAGE = `usage: kubelet-ts graph [--machine NAME] [--format mermaid|svg]\nmachines: ${Object.keys(MACHINES).join(', ')}\n`;

export async function runGraphCommand(argv: string[], io: CommandIo): Promise<number> {
  let machine: string | null = null;
  let format = 'mermaid';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--machine') machine = value() ?? '';
    else if (flag === '--format') format = value() ?? '';
    else if (flag === '--help' || flag === '-h') {
      io.stdout(USAGE);
      return 0;
    } else {
      io.stderr(`graph: unexpected ${a}\n${USAGE}`);
      return 2;
    }
  }
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
