/**
 * Compile-time pin between the CRI config shapes the domain builds (domain/runtime/cri-config.ts)
 * and the CRI port. The domain may not import ports/, so the two are declared separately; if either
 * drifts, one of these lines stops compiling.
 */
import type { ContainerConfig, PodSandboxConfig } from '../../ports/cri.js';
import type { CriContainerConfig, CriPodSandboxConfig } from '../../domain/runtime/cri-config.js';

type Assignable<From, To> = [From] extends [To] ? true : never;

export const sandboxConfigFitsPort: Assignable<CriPodSandboxConfig, PodSandboxConfig> = true;
export const containerConfigFitsPort: Assignable<CriContainerConfig, ContainerConfig> = true;
