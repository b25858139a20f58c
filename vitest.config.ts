import { defineConfig } from 'vitest/config';

/**
 * Suites that run kubelets or CRI pods on the one shared containerd (KUBELET_IT_CRI). A kubelet owns
 * its runtime, as Go's does: once its sources are seen it kills every pod it does not know, so two of
 * these files running at once on the same containerd kill each other's pods (seen: a pod not adopted
 * after a restart, a readiness flip that never came). They run after everything else, one file at a
 * time.
 */
const ONE_RUNTIME = [
  'test/adapters/cri.contract.test.ts',
  // Embedded only, but `npm start` listens on the example's fixed ports: nothing else may run beside it.
  'test/bin/npm-start.e2e.test.ts',
  'test/integration/block-volumes.e2e.test.ts',
  'test/integration/claims.e2e.test.ts',
  // Embedded only, but its outage's timings are asserted: it runs where nothing else competes.
  'test/integration/cluster.test.ts',
  'test/integration/container-log-rotation.e2e.test.ts',
  'test/integration/cpu-manager.e2e.test.ts',
  'test/integration/cri-modules.e2e.test.ts',
  'test/integration/csi-pods.e2e.test.ts',
  'test/integration/csi-reconstruction.e2e.test.ts',
  'test/integration/device-plugin.e2e.test.ts',
  'test/integration/ephemeral-containers.e2e.test.ts',
  'test/integration/explain-start.e2e.test.ts',
  'test/integration/eviction.e2e.test.ts',
  'test/integration/explain-lifecycle-node.e2e.test.ts',
  'test/integration/explain-lifecycle.e2e.test.ts',
  'test/integration/image-pull-backoff-deletion.e2e.test.ts',
  'test/integration/kubectl-exec.e2e.test.ts',
  'test/integration/kubectl-logs.e2e.test.ts',
  'test/integration/live-node.e2e.test.ts',
  'test/integration/memory-manager.e2e.test.ts',
  'test/integration/topology-manager.e2e.test.ts',
  'test/integration/node-shutdown.e2e.test.ts',
  'test/integration/orphans.e2e.test.ts',
  'test/integration/pod-self-view.e2e.test.ts',
  'test/integration/pods.e2e.test.ts',
  'test/integration/private-registry.e2e.test.ts',
  'test/integration/in-place-resize.e2e.test.ts',
  'test/integration/qos-cgroups.e2e.test.ts',
  'test/integration/real-cluster-mode.e2e.test.ts',
  'test/integration/real-control-plane.e2e.test.ts',
  // Embedded only, but it compares start-up timings: it runs where nothing else competes.
  'test/integration/report-compare.test.ts',
  'test/integration/runtime-class.e2e.test.ts',
  'test/integration/runtime-outage.e2e.test.ts',
  'test/integration/seccomp.e2e.test.ts',
  'test/integration/security-context.e2e.test.ts',
  'test/integration/service-env.e2e.test.ts',
  'test/integration/startup-probes.e2e.test.ts',
  'test/integration/stats-metrics.e2e.test.ts',
  'test/integration/stats-summary.e2e.test.ts',
  'test/integration/volume-fd-budget.e2e.test.ts',
  'test/integration/volume-updates-pod-log.e2e.test.ts',
  'test/integration/volumes.e2e.test.ts',
];

/** Where the kubelets of the tests put their /var/log/containers links. */
const TEST_LOG_LINKS_DIR = '/tmp/kts-test-log-links';

/**
 * Files of the suite project that CI's runs on the other Node lines (KTS_NODE_LINE_RUN) leave to the
 * machine's Node: the longest, whose paths other files take on every line (DRA's gRPC over unix
 * sockets is CSI's; its kubelet's restarts are the other e2e files').
 */
const NODE_LINE_SKIP = process.env.KTS_NODE_LINE_RUN ? ['test/integration/dra-claims.e2e.test.ts'] : [];

// Measurements (minutes long, for docs/BENCHMARKS.md) run only when asked for.
const EXCLUDE = process.env.KUBELET_VIZ_MEASURE ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/**/*.measure.test.ts'];

export default defineConfig({
  test: {
    // Two cores: integration tests spawn real processes, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    // The bounds are generous parameters for a loaded 2-core machine (the suite runs beside busy loops
    // and other suites: build-and-test.md), never figures: there a test that starts a runtime and a
    // container took 25 s, and a follower's next line 1.5 s (expect.poll's own default is 1 s).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 15_000 } },
    // Those bounds hold only inside a worker that still runs: a file whose worker stops reporting for
    // longer than any of them is named and its worker ended (test/support/stall-watch), so a run that
    // would hang fails and says where.
    reporters: ['default', './test/support/stall-watch/stall-watch.reporter.ts', './test/support/skipped-suites/skipped-suites.reporter.ts'],
    setupFiles: ['test/support/stall-watch/worker-pid.setup.ts'],
    // The real control plane (test/support/kube-lab.ts): started by the first file that needs it, once per run.
    globalSetup: ['test/support/fresh-build.global-setup.ts', 'test/support/kube-lab.global-setup.ts'],
    // Every kubelet a test spawns inherits these: no /kubepods on the host running the suite (see
    // NO_QOS_CGROUPS_ENV in src/actors/phases/run-phases.ts; the cgroup e2e test unsets it), and the
    // legacy container log links in a directory of the tests', not the host's /var/log/containers
    // (LEGACY_LOG_DIR_ENV in src/bin/daemon.ts).
    env: { KUBELET_TS_NO_QOS_CGROUPS: '1', KUBELET_TS_LEGACY_LOG_DIR: TEST_LOG_LINKS_DIR },
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...EXCLUDE, ...ONE_RUNTIME, ...NODE_LINE_SKIP], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'shared-containerd', include: ONE_RUNTIME, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
