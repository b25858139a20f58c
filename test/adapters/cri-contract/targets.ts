/**
 * The CRI implementations the contract suite runs against, chosen from the environment.
 *
 * - containerd (or any CRI socket): KUBELET_IT_CRI=unix:///… with the images .ci/containerd/up.sh
 *   imports. In CI (CI=true) it is mandatory: a missing endpoint is a failure, never a silent skip.
 * - the embedded runtime (src/adapters/embedded-runtime, its target in
 *   test/adapters/embedded-runtime/contract-target.ts): always, in a temp dir of its own.
 */
import { createCriClient } from '../../../src/adapters/cri-grpc/index.js';
import type { CriClient } from '../../../src/ports/cri.js';
import { embeddedRuntimeTarget } from '../embedded-runtime/contract-target.js';

export interface CriTargetHandle {
  readonly cri: CriClient;
  /** Closes the client and stops whatever start() started. */
  stop(): Promise<void>;
}

export interface CriTarget {
  readonly name: string;
  /** A busybox image that is present on the target (the suite never pulls). */
  readonly image: string;
  /** Parent cgroup for test pods (cgroupfs syntax); undefined leaves the runtime's default. */
  readonly cgroupParent?: string;
  /** Directory for pod log directories; a fresh temp dir when undefined. */
  readonly logRoot?: string;
  start(): Promise<CriTargetHandle>;
}

export interface TargetSelection {
  readonly targets: CriTarget[];
  /** Targets not registered, with why, for the suite's describe names. */
  readonly notRegistered: string[];
  /** Set when the environment is wrong for CI: the suite turns it into a failing test. */
  readonly ciError?: string;
}

export const DEFAULT_CRI_TEST_IMAGE = 'kubelet-ts.local/busybox:1.0';

function endpointTarget(endpoint: string, env: NodeJS.ProcessEnv): CriTarget {
  return {
    name: `containerd (${endpoint})`,
    image: env.KUBELET_IT_CRI_IMAGE || DEFAULT_CRI_TEST_IMAGE,
    cgroupParent: env.KUBELET_IT_CRI_CGROUP_PARENT || undefined,
    logRoot: env.KUBELET_IT_CRI_LAB ? `${env.KUBELET_IT_CRI_LAB}/logs` : undefined,
    async start() {
      const cri = createCriClient({ endpoint, runtimeRequestTimeoutMs: 30_000 });
      return { cri, stop: async () => cri.close() };
    },
  };
}

/** Targets that need no environment: they always run. */
const EXTRA_TARGETS: CriTarget[] = [embeddedRuntimeTarget()];

export function selectCriTargets(env: NodeJS.ProcessEnv = process.env, extra: CriTarget[] = EXTRA_TARGETS): TargetSelection {
  const targets: CriTarget[] = [];
  const notRegistered: string[] = [];
  let ciError: string | undefined;
  const endpoint = env.KUBELET_IT_CRI;
  if (endpoint) {
    targets.push(endpointTarget(endpoint, env));
  } else if (env.CI === 'true') {
    ciError = 'KUBELET_IT_CRI is not set in CI: start containerd with eval "$(bash .ci/containerd/up.sh)" before the tests';
  } else {
    notRegistered.push('containerd (not registered: KUBELET_IT_CRI unset)');
  }
  targets.push(...extra);
  return { targets, notRegistered, ciError };
}
