/**
 * The V8 options kubelet-ts runs under: the executable's `#!` line and `npm start` carry them (a test
 * holds both to this list), and the benchmarks start the daemon with them.
 *
 * A kubelet keeps a small live heap (≈ 25 MiB at 110 pods) but replaces much of it all the time
 * (statuses, snapshots, relist answers). With V8's defaults (16 MiB semi-spaces; an old generation
 * allowed to grow to several times what survived the last full collection) that garbage piled up
 * and RSS swung between 100 and 200 MiB at 110 pods. Measured side by side at 110 pods (idle CPU
 * and RSS over 40 s, see docs/BENCHMARKS.md):
 *   defaults                                         2.35 %   110–205 MiB
 *   --optimize-for-size                              2.6–3.4 % 90–98 MiB
 *   --max-semi-space-size=4 --heap-growing-percent=50  2.00 %   92–120 MiB
 * The last collects the old generation once it is 1.5 times the live size, with a young
 * generation small enough to scavenge often and cheaply.
 */
export const KUBELET_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];
