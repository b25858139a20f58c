/**
 * The binary the tests start: the bundled one users run (package.json's `bin`, dist/bundle/ made by
 * scripts/bundle-daemon.ts). test/bin/lazy-modules.test.ts reads tsc's unbundled output instead,
 * where module boundaries are still files.
 */
import { resolve } from 'node:path';

export const KUBELET_BIN = resolve('dist/bundle/kubelet.js');
