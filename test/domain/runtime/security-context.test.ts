import { describe, expect, it } from 'vitest';
import { verifyRunAsNonRoot, type ImageUser } from '../../../src/domain/runtime/security-context.js';
import type { Container, Pod, PodSecurityContext, SecurityContext } from '../../../src/domain/pod/types.js';

function setup(podSc: PodSecurityContext | undefined, sc: SecurityContext | undefined): { pod: Pod; container: Container } {
  const container: Container = { name: 'c', image: 'x:1', ...(sc ? { securityContext: sc } : {}) };
  return { pod: { metadata: { name: 'p', uid: 'u' }, spec: { containers: [container], ...(podSc ? { securityContext: podSc } : {}) } }, container };
}

describe('verifyRunAsNonRoot', () => {
  it.each<[string, PodSecurityContext | undefined, SecurityContext | undefined, ImageUser, boolean]>([
    ['no policy, root image', undefined, undefined, {}, true],
    ['policy with a non-root runAsUser', undefined, { runAsNonRoot: true, runAsUser: 1000 }, {}, true],
    ['policy with runAsUser 0', undefined, { runAsNonRoot: true, runAsUser: 0 }, { uid: 1000 }, false],
    ['pod-level policy, image uid 1000', { runAsNonRoot: true }, undefined, { uid: 1000 }, true],
    ['pod-level policy, image uid 0', { runAsNonRoot: true }, undefined, { uid: 0 }, false],
    ['policy, image without a user (root)', undefined, { runAsNonRoot: true }, {}, false],
    ['policy, image with a user name', undefined, { runAsNonRoot: true }, { username: 'app' }, false],
    ['container allows root over the pod policy', { runAsNonRoot: true }, { runAsNonRoot: false }, { uid: 0 }, true],
    ['pod runAsUser satisfies a container policy', { runAsUser: 1000 }, { runAsNonRoot: true }, {}, true],
  ])('%s → allowed=%s', (_, podSc, sc, image, allowed) => {
    const { pod, container } = setup(podSc, sc);
    const run = () => verifyRunAsNonRoot(pod, container, image);
    if (allowed) expect(run).not.toThrow();
    else expect(run).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
  });
});
