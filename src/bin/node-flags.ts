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
export const KUBELET_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--heap-growing-percent=50', '--no-parallel-scavenge', '--expose-gc'];

/**
 * V8 options the daemon sets on itself as it starts, before anything runs hot: they only steer the
 * compilers and what the collector keeps of their output, read when they compile or collect, and on
 * the `#!` line they would take it past the 127 characters that kernels before 5.1 read of it.
 *
 * --no-opt: no TurboFan, so hot functions stay in V8's interpreter and its baseline compiler
 * (Sparkplug). A kubelet's JavaScript is many small functions run a few times a pod, over objects
 * of many shapes; its heavy lifting (JSON, HTTP/2, TLS, the file system) is node's C++. TurboFan
 * compiled such functions on V8's worker threads for a third of a fresh process's first burst of pod
 * starts, threw much of it away as new shapes arrived, and its compiles and code held a seventh of
 * the process's peak RSS; without it a burst costs no more CPU, first or later. The price is paid
 * where bytes stream through our JavaScript: exec and port-forward data cost more CPU (docs/FINDINGS.md).
 *
 * --bytecode-old-age=1 --flush-baseline-code: what the compilers made for a function that did not run
 * between two full collections is dropped at the second, and compiled again if it runs again. Start-up's
 * code (config, certificates, the phases) and a burst's code then leave the heap at the collections
 * that follow, the heap trimmer's among them; by default V8 waits five collections, and never drops
 * code that Sparkplug compiled, which without TurboFan is most of a kubelet's warm code. A warm
 * node's next burst compiles some of it again for a little CPU, and peaks lower (docs/BENCHMARKS.md,
 * `nodefloor`).
 */
export const KUBELET_COMPILER_FLAGS: readonly string[] = ['--no-opt', '--bytecode-old-age=1', '--flush-baseline-code'];
