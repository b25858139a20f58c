#!/usr/bin/env node
/** The `kubelet-ts` executable: run main() and exit with its code. */
import { main } from './main.js';

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
