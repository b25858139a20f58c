/**
 * `npm run bench`: every benchmark, printed as figures and, where two implementations or modes
 * run side by side, their ratio from the same run. Results are kept in docs/BENCHMARKS.md.
 */
import { benchCri } from './cri.js';
import { benchJournal } from './journal.js';
import { benchPods } from './pods.js';
import { benchStartup } from './startup.js';

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);

async function main() {
  if (want('journal')) print('journal', await benchJournal());
  if (want('startup')) print('startup', await benchStartup());
  if (want('cri')) print('cri', await benchCri());
  if (want('pods')) print('pods', await benchPods());
}

function print(name: string, figures: Record<string, number>) {
  process.stdout.write(`${name}\n`);
  for (const [k, v] of Object.entries(figures)) process.stdout.write(`  ${k.padEnd(32)} ${v}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
