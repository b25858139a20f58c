/**
 * The binary the tests start: the bundled one users run (package.json's `bin`, dist/bundle/ made by
 * scripts/bundle-daemon.ts). test/bin/lazy-modules.test.ts reads tsc's unbundled output instead,
 * where module boundaries are still files.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { resolve } from 'node:path';

export const KUBELET_BIN = resolve('dist/bundle/kubelet.js');

/**
 * The bound on a synchronous run of the binary or of node: the worker's thread waits on it, out of
 * reach of vitest's timeouts. A generous parameter for a loaded 2-core machine, past which the child
 * is killed and its status is null.
 */
export const COMMAND_BOUND_MS = 60_000;

/** The binary's subcommands that read files and exit, listening on nothing. */
export type ExitingSubcommand = 'replay' | 'explain';

/** One of those, run to its end. */
export function runKubeletCommand(subcommand: ExitingSubcommand, args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [KUBELET_BIN, subcommand, ...args], { encoding: 'utf8', timeout: COMMAND_BOUND_MS });
}
