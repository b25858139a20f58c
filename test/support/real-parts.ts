/**
 * The real parts some suites need: a containerd socket (KUBELET_IT_CRI, started by
 * .ci/containerd/up.sh), Debian's Chromium and Debian's kubectl (kubernetes-client), and the
 * upstream binaries built on the machine (lab-bin.ts). A gated suite is always registered:
 * - the part is there: it runs;
 * - it is missing outside CI: it shows as skipped, its title saying what is missing and how to
 *   provide it (so a local run never reports "0 skipped" while suites did not run);
 * - a package CI installs is missing in CI (CI=true): one failing test naming the part, never a skip;
 * - an upstream binary is missing, in CI too: skipped, since a new machine has none until a session
 *   builds them there; the run's end counts those suites (skipped-suites.reporter.ts).
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { describe, it } from 'vitest';

export interface RealPart {
  /** What the suite needs, e.g. `containerd`. */
  readonly name: string;
  /** Empty when the part is there; otherwise what is missing and how to provide it. */
  readonly missing: string;
  /** Upstream binaries not built on this machine (lab-bin.ts): a skip in CI too. Empty or absent when built. */
  readonly unbuilt?: string;
}

/** The words a skipped suite's title carries when its upstream binaries are not built here; the reporter counts them. */
export const NOT_BUILT_MARK = 'upstream binaries not built here';

/** Nothing to provide: the embedded runtime, a test API server. */
export const ALWAYS_THERE: RealPart = { name: 'nothing outside the tree', missing: '' };

/** The CRI socket the containerd suites talk to; '' when KUBELET_IT_CRI is unset. */
export function containerdEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBELET_IT_CRI ?? '';
}

export function containerdPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  return {
    name: 'containerd',
    missing: containerdEndpoint(env) ? '' : 'KUBELET_IT_CRI is unset (start containerd with bash .ci/containerd/up.sh and export what it prints)',
  };
}

export function chromiumPart(path: string): RealPart {
  return { name: 'chromium', missing: existsSync(path) ? '' : `chromium is not installed at ${path} (apt-get install chromium)` };
}

export function kubectlPart(path: string): RealPart {
  return { name: 'kubectl', missing: existsSync(path) ? '' : `kubectl is not installed at ${path} (apt-get install kubernetes-client)` };
}

/** Root with a writable cgroup file system (v1's memory hierarchy or v2's unified one): suites that make cgroups under a private root. */
export function cgroupsPart(): RealPart {
  const writable = (path: string) => {
    try {
      accessSync(path, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const ok = process.getuid?.() === 0 && (writable('/sys/fs/cgroup/memory') || (existsSync('/sys/fs/cgroup/cgroup.controllers') && writable('/sys/fs/cgroup')));
  return { name: 'writable cgroups', missing: ok ? '' : 'not root, or /sys/fs/cgroup is read-only (run as root on a host or privileged container)' };
}

/** Several parts as one: there when each is, missing what any misses. */
export function allOf(...parts: RealPart[]): RealPart {
  const joined = (of: (p: RealPart) => string | undefined) => parts.map(of).filter(Boolean).join('; ');
  return { name: parts.map((p) => p.name).join(' and '), missing: joined((p) => p.missing), unbuilt: joined((p) => p.unbuilt) };
}

/** The part a runtime endpoint needs: containerd for a socket, nothing for the embedded runtime. */
export function partForEndpoint(endpoint: string, env: NodeJS.ProcessEnv = process.env): RealPart {
  return endpoint === 'embedded' ? ALWAYS_THERE : containerdPart(env);
}

/** What a gated suite does: run, show as skipped (outside CI, or for want of upstream binaries), or fail (CI must provide every package). */
export function gateOf(part: RealPart, env: NodeJS.ProcessEnv = process.env): 'run' | 'skip' | 'fail' {
  if (part.missing && env.CI === 'true') return 'fail';
  return part.missing || part.unbuilt ? 'skip' : 'run';
}

/** Why a gated suite is skipped, as its title says it. */
export function skipReason(part: RealPart): string {
  return [part.missing, part.unbuilt ? `${NOT_BUILT_MARK}: ${part.unbuilt}` : ''].filter(Boolean).join('; ');
}

/** `describe(title, body)` when the part is there; skipped (saying why) or, in CI, failing when it is not. */
export function describeNeeding(part: RealPart, title: string, body: () => void, env: NodeJS.ProcessEnv = process.env): void {
  const gate = gateOf(part, env);
  if (gate === 'fail') {
    describe(title, () => {
      it(`has ${part.name}, which CI must provide`, () => {
        throw new Error(`${part.missing}: in CI this suite must run, never skip`);
      });
    });
    return;
  }
  describe.skipIf(gate === 'skip')(gate === 'skip' ? `${title} (skipped: ${skipReason(part)})` : title, body);
}
