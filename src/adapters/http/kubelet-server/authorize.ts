/**
 * Authorization for the kubelet server: AlwaysAllow, or Webhook through a SubjectAccessReviewer.
 * The request is allowed when any of its attribute sets is (fine-grained subresource first, then
 * proxy: Go's KubeletFineGrainedAuthz); a review that fails is a 500 naming the attributes, a denial
 * a 403 naming all the subresources tried, both worded as Go words them.
 */
import {
  authorizationErrorMessage, forbiddenMessage, type NodeRequestAttributes,
} from '../../../domain/kubelet-server/request-attributes.js';
import type { SubjectAccessReviewer } from '../../../ports/kubelet-view.js';

export type AuthorizationMode = 'AlwaysAllow' | 'Webhook';

export type AuthorizationResult =
  | { allowed: true }
  | { allowed: false; status: 403 | 500; body: string; reason?: string };

export async function authorizeRequest(
  mode: AuthorizationMode,
  reviewer: SubjectAccessReviewer | undefined,
  attrs: readonly NodeRequestAttributes[],
): Promise<AuthorizationResult> {
  if (mode === 'AlwaysAllow') return { allowed: true };
  if (!reviewer) return { allowed: false, status: 500, body: authorizationErrorMessage(attrs[0]!), reason: 'no SubjectAccessReviewer' };
  const reasons: string[] = [];
  for (const attr of attrs) {
    try {
      const review = await reviewer.review(attr);
      if (review.allowed) return { allowed: true };
      if (review.reason) reasons.push(review.reason);
    } catch (err) {
      return { allowed: false, status: 500, body: authorizationErrorMessage(attr), reason: (err as Error).message };
    }
  }
  return { allowed: false, status: 403, body: forbiddenMessage(attrs), reason: reasons.join('; ') };
}
