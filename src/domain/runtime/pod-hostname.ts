/**
 * The hostname and domain a pod is given (Go's GeneratePodHostNameAndDomain), for its sandbox's
 * hostname and its /etc/hosts: spec.hostnameOverride as it is, with no domain (HostnameOverride,
 * on in v1.35); else spec.hostname or the pod's name, with `<subdomain>.<namespace>.svc.<clusterDomain>`
 * when the pod has a subdomain. Names longer than 63 characters are cut, without a trailing '-' or
 * '.'. The DNS checks of hostname and subdomain are left to pod validation, as before; the
 * override is checked here, as Go checks it. Pure.
 */
import { isDns1123Subdomain } from '../pod-config/validate-pod.js';
import { KubeletError } from '../errors.js';
import type { Pod } from '../pod/types.js';

const maxHostnameLength = 63;

const truncated = (hostname: string): string =>
  (hostname.length > maxHostnameLength ? hostname.slice(0, maxHostnameLength).replace(/[-.]+$/, '') : hostname);

export function podHostnameAndDomain(pod: Pod, clusterDomain: string): { hostname: string; hostDomain: string } {
  const override = pod.spec.hostnameOverride;
  if (override !== undefined) {
    if (!isDns1123Subdomain(override)) {
      throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', `pod HostnameOverride ${JSON.stringify(override)} is not a valid DNS subdomain`);
    }
    return { hostname: truncated(override), hostDomain: '' };
  }
  const subdomain = pod.spec.subdomain;
  return {
    hostname: truncated(pod.spec.hostname || pod.metadata.name),
    hostDomain: subdomain ? `${subdomain}.${pod.metadata.namespace ?? 'default'}.svc.${clusterDomain}` : '',
  };
}
