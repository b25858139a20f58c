/**
 * The embedded runtime installs no seccomp filter (its containers are host processes), so a
 * sandbox or container asking for one (RuntimeDefault or Localhost) is refused rather than run
 * unconfined. Unconfined, or no profile at all, is what it does anyway and is accepted.
 */
import { KubeletError } from '../../../domain/errors.js';
import type { SecurityProfile__Output } from '../../../generated/runtime/v1/SecurityProfile.js';

export function refuseSeccompFilter(what: 'sandbox' | 'container', profile: SecurityProfile__Output | null | undefined): void {
  if (!profile || profile.profile_type === 'Unconfined') return;
  const asked = profile.profile_type === 'Localhost' ? `Localhost ${JSON.stringify(profile.localhost_ref)}` : profile.profile_type;
  throw new KubeletError(
    'KLT_ERR_CRI_INVALID_ARGUMENT',
    `${what} linux.security_context.seccomp ${asked} is not supported by the embedded runtime, which runs processes without a seccomp filter; only Unconfined is`,
  );
}
