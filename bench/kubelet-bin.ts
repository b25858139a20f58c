/**
 * The binary the benchmarks start: the bundled one users run (package.json's `bin`, made by
 * scripts/bundle-daemon.ts); and tsc's unbundled output, for the start-up comparison of the two.
 */
import { resolve } from 'node:path';

export const KUBELET_BIN = resolve('dist/bundle/kubelet.js');
export const KUBELET_TSC_BIN = resolve('dist/src/bin/kubelet.js');
