/**
 * The CRI implementations the contract suite runs against, chosen from the environment.
 *
 * - containerd (or any CRI socket): KUBELET_IT_CRI=unix:///… with the images .ci/containerd/up.sh
 *   imports. Without it the target is skipped, saying so; in CI (CI=true) a missing endpoint is a
 *   failure, never a skip (test/support/real-parts.ts).
 * - the embedded runtime (src/adapters/embedded-runtime, its target in
 *   test/adapters/embedded-runtime/contract-target.ts): always, in a temp dir of its own, over its
 *   socket and over its in-process channel (what the kubelet's own client uses).
 */
import { createCriClient } from '../../../src/adapters/cri-grpc/index.js';
import type { CriClient } from '../../../src/ports/cri.js';
import { embeddedRuntimeTarget } from '../embedded-runtime/contract-target.js';
import { ALWAYS_THERE, containerdPart, type RealPart } from '../../support/real-parts.js';

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

export const DEFAULT_CRI_TEST_IMAGE = 'kubelet-ts.local/busybox:1.0';

/** A target with the real part it needs (containerd's socket; nothing for the embedded runtime). */
export interface GatedTarget {
  readonly target: CriTarget;
  readonly part: RealPart;
}

function endpointTarget(endpoint: string, env: NodeJS.ProcessEnv): CriTarget {
  return {
    name: `containerd (${endpoint || 'KUBELET_IT_CRI unset'})`,
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
const EXTRA_TARGETS: CriTarget[] = [embeddedRuntimeTarget(), embeddedRuntimeTarget({ inProcess: true })];

/** Every target, always registered: the endpoint's runs when KUBELET_IT_CRI names one. */
export function selectCriTargets(env: NodeJS.ProcessEnv = process.env, extra: CriTarget[] = EXTRA_TARGETS): GatedTarget[] {
  return [
    { target: endpointTarget(env.KUBELET_IT_CRI ?? '', env), part: containerdPart(env) },
    ...extra.map((target) => ({ target, part: ALWAYS_THERE })),
  ];
}
