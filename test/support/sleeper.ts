/**
 * The command of a container that runs until it is stopped: it sleeps until SIGTERM, then exits 0
 * at once. The `sleep 1` is its idle loop's step, run in the background so the shell hears the
 * signal while it waits; it is not a wait of any test's. No vitest import: the benches use it too.
 */
export const SLEEP_UNTIL_TERM = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";
