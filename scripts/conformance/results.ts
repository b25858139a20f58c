/**
 * One run's results as kept in the repository (docs/conformance/<runtime>.json): when, where, how, and
 * per spec its status, seconds and first failure line. A subset or dry run is marked partial and kept
 * out of docs/ (see resultsFile), so it never stands in for a full run.
 */
import type { SpecExplanation } from './explain-failures.js';
import type { SpecResult } from './junit.js';

export type Runtime = 'ts' | 'go';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memGiB: number;
  kernel: string;
  /** 1-minute load average when the suite started: how quiet the machine was. */
  loadAtStart: number;
}

export interface ConformanceResults {
  runtime: Runtime;
  /** The kubelet under test, with its version. */
  kubelet: string;
  /** The version of the control plane and the e2e suite (one build of KUBE_LAB_BIN); absent in runs before it was kept. */
  suite?: string;
  /** ISO time the suite started. */
  date: string;
  machine: Machine;
  command: string;
  procs: number;
  wallSeconds: number;
  focus: string;
  skip: string;
  /** The image archives imported into containerd, in order (a later one of the same name replaces an earlier). */
  images: string[];
  /** A subset, a dry run or an interrupted run: not the whole selection's verdict. */
  partial: boolean;
  /** Specs the focus and skip left out of the binary's. */
  notSelected: number;
  suiteFailures: SpecResult[];
  specs: SpecResult[];
  /** The kept subset this run was (options.ts: CONFORMANCE_SUBSET). */
  subset?: string;
  /** kubelet-ts only: where the node's journal (its events directory) is kept after the run. */
  journal?: string;
  /** kubelet-ts only: `explain` on pods of each spec that did not pass. */
  explained?: SpecExplanation[];
}

export const RUNTIME_LABEL: Record<Runtime, string> = { ts: 'kubelet-ts', go: 'Go kubelet' };

export const SUBSETS_DIR = 'docs/conformance/subsets';

/** A kept subset's spec names, one a line. */
export const subsetSpecsFile = (subset: string) => `${SUBSETS_DIR}/${subset}.txt`;

/** A kept subset's page, both kubelets side by side. */
export const subsetReportFile = (subset: string) => `${SUBSETS_DIR}/${subset}.md`;

/**
 * Where a run's results go: a full run's into docs/conformance, a kept subset's beside its spec list
 * (whole or not: it is that subset's verdict), any other next to the run's logs.
 */
export function resultsFile(runtime: Runtime, partial: boolean, subset?: string): string {
  const base = runtime === 'ts' ? 'kts' : 'go';
  if (subset !== undefined) return `${SUBSETS_DIR}/${subset}.${base}.json`;
  return partial ? `test-artifacts/conformance/${base}.partial.json` : `docs/conformance/${base}.json`;
}

/** Specs per status, in a stable order. */
export function countByStatus(specs: readonly SpecResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of [...specs].sort((a, b) => a.status.localeCompare(b.status))) counts[s.status] = (counts[s.status] ?? 0) + 1;
  return counts;
}
