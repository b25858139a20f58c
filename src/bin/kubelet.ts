#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=50 --no-parallel-scavenge --expose-gc
/** The `kubelet-ts` executable: run main() and exit with its code. V8 options: see node-flags.ts. */
import { setFlagsFromString } from 'node:v8';
import { main } from './main.js';
import { KUBELET_COMPILER_FLAGS } from './node-flags.js';

for (const flag of KUBELET_COMPILER_FLAGS) setFlagsFromString(flag);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Servers and timers of a stopped daemon are closed; exit now rather than wait on stragglers.
    setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    process.stderr.write(`kubelet-ts: internal error: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(70);
  },
);
