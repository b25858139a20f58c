/**
 * The binary the benchmarks start: the bundled one users run (package.json's `bin`, made by
 * scripts/bundle-daemon.ts); and tsc's unbundled output, for the start-up comparison of the two.
 */
import { resolve } from 'node:path';

export const KUBELET_BIN = resolve('dist/bundle/kubelet.js');

// Every benchmark kubelet is started through this module's path and inherits the environment: none
// makes QoS or pod cgroups on the host (NO_QOS_CGROUPS_ENV in src/actors/phases/run-phases.ts).
process.env.KUBELET_TS_NO_QOS_CGROUPS ??= '1';
export const KUBELET_TSC_BIN = resolve('dist/src/bin/kubelet.js');
