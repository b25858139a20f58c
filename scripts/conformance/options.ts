/**
 * `npm run conformance [-- --runtime=ts|go] [--dry-run] [--report]` and its environment:
 * CONFORMANCE_PROCS (ginkgo processes, 2), CONFORMANCE_TIMEOUT (the suite's, 180m),
 * CONFORMANCE_FOCUS (a regular expression on spec names), CONFORMANCE_SPECS (a file of spec names),
 * CONFORMANCE_SUBSET (a kept subset's name: its specs and results live in docs/conformance/subsets),
 * CONFORMANCE_LAB_IMAGES_ONLY=1 (only the lab's images, without the run's own: extra-images.ts) and
 * CONFORMANCE_E2E (the e2e binary's name in KUBE_LAB_BIN, e2e.test: a binary linking other e2e
 * packages, test/e2e/dra say, runs their specs).
 */
import { subsetSpecsFile, type Runtime } from './results.js';

export interface Options {
  runtime: Runtime;
  /** List the selection (and the subset) without running anything. */
  dryRun: boolean;
  /** Only regenerate docs/CONFORMANCE.md from the kept runs. */
  reportOnly: boolean;
  procs: number;
  timeout: string;
  focus?: string;
  specsFile?: string;
  /** A kept subset: its spec list is docs/conformance/subsets/NAME.txt, its results are kept beside it. */
  subset?: string;
  labImagesOnly: boolean;
  /** The e2e binary's file name in KUBE_LAB_BIN. */
  e2eBinary: string;
  /** How to run this again, for the results file. */
  command: string;
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): Options {
  let runtime: Runtime = 'ts';
  let dryRun = false;
  let reportOnly = false;
  for (const arg of argv) {
    const runtimeArg = /^--runtime=(.*)$/.exec(arg);
    if (runtimeArg) {
      if (runtimeArg[1] !== 'ts' && runtimeArg[1] !== 'go') throw new Error(`--runtime must be ts or go, not ${runtimeArg[1]}`);
      runtime = runtimeArg[1];
    } else if (arg === '--dry-run' || arg === '--ginkgo.dry-run') dryRun = true;
    else if (arg === '--report') reportOnly = true;
    else throw new Error(`unknown argument ${arg} (--runtime=ts|go, --dry-run, --report)`);
  }
  const procs = Number(env.CONFORMANCE_PROCS || 2);
  if (!Number.isInteger(procs) || procs < 1) throw new Error(`CONFORMANCE_PROCS must be a whole number ≥ 1, not ${env.CONFORMANCE_PROCS}`);
  const timeout = env.CONFORMANCE_TIMEOUT || '180m';
  const labImagesOnly = env.CONFORMANCE_LAB_IMAGES_ONLY === '1';
  const subset = env.CONFORMANCE_SUBSET || undefined;
  if (subset !== undefined) {
    if (!/^[a-z0-9-]+$/.test(subset)) throw new Error(`CONFORMANCE_SUBSET must be a name of lowercase letters, digits and dashes, not ${subset}`);
    if (env.CONFORMANCE_SPECS || env.CONFORMANCE_FOCUS) throw new Error('CONFORMANCE_SUBSET names its own specs: give it without CONFORMANCE_SPECS or CONFORMANCE_FOCUS');
  }
  const e2eBinary = env.CONFORMANCE_E2E || 'e2e.test';
  if (!/^[\w.-]+$/.test(e2eBinary)) throw new Error(`CONFORMANCE_E2E must be a file name in KUBE_LAB_BIN, not ${e2eBinary}`);
  // The lab's own settings too, when set: the containerd release, its CDI dirs and the API server's flags change what a run shows.
  const set = [...RUN_SETTINGS, ...LAB_SETTINGS].filter((k) => env[k]).map((k) => `${k}=${shellQuote(env[k]!)} `);
  const command = `${set.join('')}npm run conformance${runtime === 'go' ? ' -- --runtime=go' : ''}`;
  return {
    runtime, dryRun, reportOnly, procs, timeout, command, labImagesOnly, e2eBinary,
    ...(env.CONFORMANCE_FOCUS ? { focus: env.CONFORMANCE_FOCUS } : {}),
    ...(env.CONFORMANCE_SPECS ? { specsFile: env.CONFORMANCE_SPECS } : {}),
    ...(subset !== undefined ? { subset, specsFile: subsetSpecsFile(subset) } : {}),
  };
}

const RUN_SETTINGS = ['CONFORMANCE_PROCS', 'CONFORMANCE_TIMEOUT', 'CONFORMANCE_FOCUS', 'CONFORMANCE_SPECS', 'CONFORMANCE_SUBSET', 'CONFORMANCE_LAB_IMAGES_ONLY', 'CONFORMANCE_E2E'];
const LAB_SETTINGS = ['CONTAINERD_RELEASE', 'CDI_SPEC_DIRS', 'KUBE_LAB_APISERVER_ARGS'];

const shellQuote = (v: string) => (/^[\w./:=-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
