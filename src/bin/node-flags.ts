/**
 * The V8 options kubelet-ts runs under: the executable's `#!` line and `npm start` carry them (a test
 * holds both to this list), and the benchmarks start the daemon with them.
 *
 * A kubelet keeps a small live heap but replaces much of it all the time (statuses, snapshots,
 * relist answers). With V8's defaults (16 MiB semi-spaces; an old generation allowed to grow to
 * several times what survived the last full collection) that garbage piles up and RSS swings to
 * several times the live heap. These flags collect the old generation once it is 1.5 times the live
 * size, with a young generation small enough to scavenge often and cheaply; they keep RSS low
 * without the CPU that --optimize-for-size costs (docs/FINDINGS.md). A young generation that small
 * is scavenged often, and V8 splits each scavenge among its worker threads: four, whatever the
 * machine has, so on a small node they wait on each other and burn more CPU than one thread doing
 * it alone (--no-parallel-scavenge; the pauses stay a few milliseconds). --expose-gc lets the heap
 * trimmer (src/adapters/host/heap-trim.ts) give back what a burst grew once the node is quiet.
 */
export const KUBELET_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50', '--no-parallel-scavenge', '--expose-gc'];

/**
 * V8 options the daemon sets on itself as it starts, before anything runs hot: they only steer the
 * optimising compiler, which reads them when it compiles, and on the `#!` line they would take it
 * past the 127 characters that kernels before 5.1 read of it.
 *
 * Each function a burst of pod starts makes hot is compiled by TurboFan on V8's worker threads, a
 * cost a compiled kubelet never pays; the more it inlines into a function, the longer the compile
 * and the more code it leaves. A pod start's path is many small functions, each called a few times
 * a pod: half V8's cumulative inlining budget keeps their speed with smaller compiles and code.
 */
export const KUBELET_COMPILER_FLAGS: readonly string[] = ['--max-inlined-bytecode-size-cumulative=460'];
