/**
 * Taints against tolerations (k8s.io/api core/v1 Toleration.ToleratesTaint and component-helpers
 * FindMatchingUntoleratedTaint). A toleration tolerates a taint when its effect is empty or the
 * taint's, its key is empty or the taint's, and its operator is Exists, or Equal / empty with the
 * taint's value (an absent value is ""). The Gt/Lt operators of the alpha
 * TaintTolerationComparisonOperators gate are not known: such a toleration tolerates nothing, as
 * with the gate off.
 */
import type { Taint } from '../api/common-types.js';
import type { Toleration } from './types.js';

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The first taint `considered` keeps that no toleration tolerates, if any. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], considered: (t: Taint) => boolean): Taint | undefined {
  return taints.find((t) => considered(t) && !tolerations.some((tol) => toleratesTaint(tol, t)));
}
