/**
 * RFC 1123 name syntax as k8s.io/apimachinery/pkg/util/validation writes it (the one copy: pod
 * validation and config validation both check names with these). Lengths are checked by the
 * callers, which word their errors as Go does: a label is at most 63 characters, a subdomain 253.
 */

/** IsDNS1123Label's pattern: lower-case alphanumerics and '-', alphanumeric at both ends. */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** IsDNS1123Subdomain's pattern: DNS-1123 labels joined by '.'. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
