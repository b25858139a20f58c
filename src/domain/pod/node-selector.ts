/**
 * Does a node satisfy a pod's node selection (component-helpers scheduling/corev1/nodeaffinity
 * GetRequiredNodeAffinity(pod).Match(node))?
 *   - spec.nodeSelector: every key must be a node label with exactly that value;
 *   - then, when set, affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: one of
 *     its terms must match (ORed). A term's matchExpressions (on labels) and matchFields (on the
 *     node's `metadata.name`, the only node field) must all hold (ANDed). A term with neither
 *     matches nothing, so required affinity without a usable term matches no node.
 * Requirements follow apimachinery's labels.Requirement: In (the label exists with one of the
 * values), NotIn (the label is absent or has none of them), Exists, DoesNotExist, Gt and Lt (the
 * label exists and, as a base-10 integer, is greater / less than the one value). A requirement
 * Go's parser refuses (an unknown operator, In with no values, Exists with values, Gt with a
 * value that is not an integer, an invalid key or value; matchFields with another operator than
 * In/NotIn or not exactly one value) makes its term match nothing.
 */
import { labelValueErrors, qualifiedNameErrors } from '../config/label-syntax.js';
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from './types.js';

export interface SelectableNode {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, in the int64 range. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** labels.NewRequirement's checks. */
function isValidLabelRequirement(r: NodeSelectorRequirement): boolean {
  const values = r.values ?? [];
  if (typeof r.key !== 'string' || qualifiedNameErrors(r.key).length > 0) return false;
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) return false;
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) return false;
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1 || parseInt64(values[0]!) === undefined) return false;
      break;
    default:
      return false;
  }
  return values.every((v) => typeof v === 'string' && labelValueErrors(v).length === 0);
}

function labelRequirementHolds(r: NodeSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const actual = has ? parseInt64(value!) : undefined;
      const bound = parseInt64(values[0]!)!;
      if (actual === undefined) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
  }
}

/** A matchFields requirement against the node's fields (metadata.name; any other field reads as ""). */
function fieldRequirementHolds(r: NodeSelectorRequirement, node: SelectableNode): boolean | undefined {
  const values = r.values ?? [];
  if ((r.operator !== 'In' && r.operator !== 'NotIn') || values.length !== 1) return undefined;
  const field = r.key === 'metadata.name' ? node.name : '';
  return r.operator === 'In' ? field === values[0] : field !== values[0];
}

function termMatches(term: NodeSelectorTerm, node: SelectableNode): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  if (!expressions.every(isValidLabelRequirement)) return false;
  const fieldResults = fields.map((r) => fieldRequirementHolds(r, node));
  if (fieldResults.includes(undefined)) return false;
  if (!expressions.every((r) => labelRequirementHolds(r, node.labels))) return false;
  // Go skips the field check for a node without a name; ours always has one.
  return node.name === '' || fieldResults.every(Boolean);
}

/** corev1.MatchNodeSelectorTerms: one of the terms (ORed) matches the node. */
export function matchesNodeSelectorTerms(terms: readonly NodeSelectorTerm[], node: SelectableNode): boolean {
  return terms.some((term) => termMatches(term, node));
}

/** GetRequiredNodeAffinity(pod).Match(node): see the file comment. */
export function matchesRequiredNodeAffinity(pod: Pod, node: SelectableNode): boolean {
  for (const [key, value] of Object.entries(pod.spec.nodeSelector ?? {})) {
    if (!Object.hasOwn(node.labels, key) || node.labels[key] !== value) return false;
  }
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return matchesNodeSelectorTerms(required.nodeSelectorTerms ?? [], node);
}
