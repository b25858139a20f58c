/**
 * A downwardAPI volume's content (Go: pkg/volume/downwardapi, CollectData). The values come from
 * the env-var helpers in runtime/field-ref.ts, but a volume's fieldRef reaches less than an env var:
 * Go's volume reads the pod through fieldpath.ExtractFieldPathAsString, which knows only
 * metadata.name, namespace, uid, labels and annotations (and `metadata.labels['k']` subscripts).
 * status.podIP, spec.nodeName and the rest are refused. A resourceFieldRef names its container.
 */
import { KubeletError } from '../errors.js';
import { qualifiedNameErrors } from '../config/label-syntax.js';
import type { Pod, ResourceFieldSelector } from '../pod/types.js';
import { containerResourceValue, podFieldValue, type DownwardApiContext } from '../runtime/field-ref.js';
import { defaultVolumeFileMode } from './keyed-payload.js';
import { checkedPayloadPath } from './payload-path.js';
import type { DownwardAPIVolumeFile, DownwardAPIVolumeSource, Payload } from './sources.js';
import { aggregateErrors, asKubeletError } from './volume-errors.js';

/** What the node adds: allocatable, for a limit a container leaves unset (cpu, memory, ephemeral-storage). */
export interface DownwardApiNode { nodeAllocatable?: Record<string, string> }

const plainFieldPaths: ReadonlySet<string> = new Set(['metadata.name', 'metadata.namespace', 'metadata.uid', 'metadata.labels', 'metadata.annotations']);

function specError(message: string): KubeletError {
  return new KubeletError('KLT_ERR_POD_SPEC_INVALID', message);
}

/** Go's SplitMaybeSubscriptedPath: `path['subscript']`, or undefined when not subscripted. */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const open = inner.indexOf("['");
  if (open <= 0) return undefined;
  return { path: inner.slice(0, open), subscript: inner.slice(open + 2) };
}

/** A fieldRef's value as a downward API volume file holds it; throws for a path Go's volume refuses. */
export function downwardApiVolumeFieldValue(fieldPath: string, pod: Pod): string {
  const split = splitSubscript(fieldPath);
  if (split !== undefined) {
    if (split.path !== 'metadata.labels' && split.path !== 'metadata.annotations') {
      throw specError(`fieldPath ${JSON.stringify(fieldPath)} does not support subscript`);
    }
    // Annotation keys are checked lower-cased, label keys as they are (as Go does).
    const key = split.path === 'metadata.annotations' ? split.subscript.toLowerCase() : split.subscript;
    const problems = qualifiedNameErrors(key);
    if (problems.length > 0) throw specError(`invalid key subscript in ${fieldPath}: ${problems.join(';')}`);
  } else if (!plainFieldPaths.has(fieldPath)) {
    throw specError(`unsupported fieldPath: ${fieldPath}`);
  }
  return podFieldValue(fieldPath, pod, { podIPs: [], hostIPs: [] });
}

function resourceValue(ref: ResourceFieldSelector, pod: Pod, node: DownwardApiNode): string {
  const name = ref.containerName ?? '';
  const container = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === name);
  if (container === undefined) throw specError(`container ${name} not found`);
  const ctx: DownwardApiContext = { podIPs: [], hostIPs: [], nodeAllocatable: node.nodeAllocatable };
  return containerResourceValue(ref, pod, container, ctx);
}

/**
 * Every item's file, and every item's failure: Go writes nothing when any item fails, but reports
 * them all at once. Used by the projected volume too, with its own defaultMode.
 */
export function collectDownwardApi(items: readonly DownwardAPIVolumeFile[], pod: Pod, node: DownwardApiNode, defaultMode: number): { payload: Payload; errors: KubeletError[] } {
  const payload: Payload = new Map();
  const errors: KubeletError[] = [];
  for (const file of items) {
    try {
      const path = checkedPayloadPath(file.path);
      let text = '';
      if (file.fieldRef !== undefined) text = downwardApiVolumeFieldValue(file.fieldRef.fieldPath, pod);
      else if (file.resourceFieldRef !== undefined) text = resourceValue(file.resourceFieldRef, pod, node);
      payload.set(path, { path, content: Buffer.from(text), mode: file.mode ?? defaultMode });
    } catch (err) {
      errors.push(asKubeletError(err));
    }
  }
  return { payload, errors };
}

/**
 * The payload of a downwardAPI volume. Throws one KubeletError for all failing items
 * (KLT_ERR_POD_SPEC_INVALID for a path or fieldPath Go refuses, KLT_ERR_CONTAINER_CONFIG from the
 * resource helpers).
 */
export function downwardApiPayload(source: DownwardAPIVolumeSource, pod: Pod, node: DownwardApiNode = {}): Payload {
  const { payload, errors } = collectDownwardApi(source.items ?? [], pod, node, source.defaultMode ?? defaultVolumeFileMode);
  const failure = aggregateErrors(errors);
  if (failure !== undefined) throw failure;
  return payload;
}
