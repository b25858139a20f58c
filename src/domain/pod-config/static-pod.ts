/**
 * What the Go kubelet does to a pod it reads from a manifest file or URL before anyone sees it
 * (pkg/kubelet/config/common.go tryDecodeSinglePod / tryDecodePodList / applyDefaults):
 *   1. decode: a `v1` `Pod` (or, from a URL only, a `v1` `PodList`), with the API server's defaults;
 *   2. UID, unless the manifest sets one: md5 (see below), hex, over
 *        canonicalJson(the defaulted pod as written, metadata.uid absent)
 *        + "host:<nodeName>" + "file:<path>"        (file source)
 *        + "url:<url>"                                (http source)
 *      so it is stable for the same manifest at the same place on the same node, and changes when
 *      any byte of meaning in the manifest changes (editing a manifest makes a new pod: REMOVE +
 *      ADD). Go hashes its in-memory struct (DeepHashObject) rather than JSON, so the values differ
 *      from Go's. config.seen is not in the hash (the merge stamps it).
 *   3. name `<name>-<lowercased nodeName>`, namespace `default` if empty, spec.nodeName, annotations
 *      config.hash (= UID) and config.source, the NoExecute-tolerating toleration for file pods,
 *      status.phase Pending;
 *   4. validation (validate-pod.ts), after the treatment, as in Go; then no references to API
 *      objects (api-references.ts: secrets, config maps, service accounts…).
 * A manifest without a name is refused first, with Go's message.
 * The hash: older Go used md5, current Go uses FNV-1a 128 over DeepHashObject's dump of its
 * internal struct; neither can be reproduced byte for byte from JSON, so we use md5 (32 hex digits,
 * the same shape) over canonical JSON. What goes in is the same as Go: the pod, node, path or URL.
 */
import { createHash } from 'node:crypto';
import { isPlainObject as isObject } from '../config/decode.js';
import type { Pod, Toleration } from '../pod/types.js';
import { canonicalJson } from '../runtime/container-hash.js';
import { staticPodApiReference } from './api-references.js';
import { applyPodDefaults } from './pod-defaults.js';
import { metadataShapeError, specShapeError, withoutNulls } from './pod-shape.js';
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION, type PodSourceName } from './types.js';
import { validatePod } from './validate-pod.js';

export interface ManifestOrigin {
  source: PodSourceName;
  /** The file's path (file source) or the URL (http source): part of the UID. */
  origin: string;
  nodeName: string;
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** One decoded manifest document as a static pod, or why it is not one. */
export function decodeStaticPod(doc: unknown, origin: ManifestOrigin): DecodeResult<Pod> {
  const kindError = checkTypeMeta(doc, 'Pod');
  if (kindError) return { ok: false, reason: kindError };
  return podFromObject(doc as Record<string, unknown>, origin, '');
}

/**
 * A URL's body: a Pod, or a PodList (Go tries the single pod first, then the list). One invalid
 * item rejects the whole list, as in Go.
 */
export function decodePodsFromUrl(doc: unknown, origin: ManifestOrigin): DecodeResult<Pod[]> {
  if (isObject(doc) && doc['kind'] === 'PodList') {
    const kindError = checkTypeMeta(doc, 'PodList');
    if (kindError) return { ok: false, reason: kindError };
    const items = doc['items'] ?? [];
    if (!Array.isArray(items)) return { ok: false, reason: 'items: must be a list of pods' };
    const pods: Pod[] = [];
    for (const [i, item] of items.entries()) {
      // Items of a list carry no kind/apiVersion of their own.
      if (!isObject(item)) return { ok: false, reason: `items[${i}]: must be an object` };
      const result = podFromObject(item, origin, `items[${i}].`);
      if (!result.ok) return result;
      pods.push(result.value);
    }
    return { ok: true, value: pods };
  }
  const single = decodeStaticPod(doc, origin);
  return single.ok ? { ok: true, value: [single.value] } : single;
}

/** The UID Go would give (see the file comment for exactly what is hashed). */
export function staticPodUid(defaulted: Pod, origin: ManifestOrigin): string {
  const { uid: _uid, ...metadata } = defaulted.metadata;
  const hasher = createHash('md5').update(canonicalJson({ ...defaulted, metadata }));
  if (origin.source === 'file') hasher.update(`host:${origin.nodeName}`).update(`file:${origin.origin}`);
  else hasher.update(`url:${origin.origin}`);
  return hasher.digest('hex');
}

/** Go's generatePodName: unique among nodes by appending the lowercased node name. */
export function staticPodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

/** Static pods tolerate every NoExecute taint, so node problems do not evict them (file source only). */
export const STATIC_POD_TOLERATION: Toleration = { operator: 'Exists', effect: 'NoExecute' };

function checkTypeMeta(doc: unknown, kind: 'Pod' | 'PodList'): string | null {
  if (!isObject(doc)) return `not an object: a manifest holds one ${kind}`;
  if (doc['kind'] === undefined || doc['kind'] === '') return "Object 'Kind' is missing";
  if (doc['kind'] !== kind) return `kind: Unsupported value: ${JSON.stringify(doc['kind'])}: supported values: "${kind}"`;
  if (doc['apiVersion'] !== 'v1') return `apiVersion: Unsupported value: ${JSON.stringify(doc['apiVersion'] ?? '')}: supported values: "v1"`;
  return null;
}

/** Shape checks a typed Pod relies on, then the treatment. `prefix` locates the pod in a list. */
function podFromObject(manifest: Record<string, unknown>, origin: ManifestOrigin, prefix: string): DecodeResult<Pod> {
  const obj = withoutNulls(manifest);
  const shapeError = checkShape(obj);
  if (shapeError) return { ok: false, reason: `${prefix}${shapeError}` };
  if (!(obj['metadata'] as { name?: string } | undefined)?.name) return { ok: false, reason: `${prefix}invalid pod: name is needed for the pod` };
  // checkShape above has checked the fields a Pod's readers rely on; the rest of the manifest is
  // read as the API's Pod type, as Go's decoder does, and validatePod checks it field by field.
  const pod = applyPodDefaults(quantitiesAsText(obj as unknown as Pod)); // cast: shape-checked above, validated below
  const treated = applyStaticPodTreatment(pod, origin);
  const errors = validatePod(treated);
  if (errors.length > 0) return { ok: false, reason: `invalid pod: ${errors.map((e) => prefix + e).join('; ')}` };
  const reference = staticPodApiReference(treated);
  if (reference && 'error' in reference) return { ok: false, reason: `${prefix}${reference.error}` };
  if (reference) return { ok: false, reason: `${prefix}static pods may not reference ${reference.resource}` };
  return { ok: true, value: treated };
}

function checkShape(obj: Record<string, unknown>): string | null {
  const metadataError = metadataShapeError(obj['metadata']);
  if (metadataError) return metadataError;
  const spec = obj['spec'];
  if (!isObject(spec)) return 'spec: Required value';
  if (spec['containers'] === undefined) return 'spec.containers: Required value';
  return specShapeError(spec);
}

/**
 * A quantity written as a number (YAML `cpu: 2`) as Go's Quantity decodes it too: every resource
 * list, and an emptyDir's sizeLimit, keeps its amounts as text, which is what the rest of the
 * kubelet parses. Works on a copy.
 */
function quantitiesAsText(pod: Pod): Pod {
  const copy = structuredClone(pod);
  const fix = (list: Record<string, unknown> | undefined) => {
    for (const [name, value] of Object.entries(list ?? {})) if (typeof value === 'number' && Number.isFinite(value)) list![name] = String(value);
  };
  for (const c of [...(copy.spec.initContainers ?? []), ...copy.spec.containers]) {
    fix(c.resources?.requests);
    fix(c.resources?.limits);
  }
  fix(copy.spec.resources?.requests);
  fix(copy.spec.resources?.limits);
  fix(copy.spec.overhead);
  for (const volume of copy.spec.volumes ?? []) if (volume.emptyDir) fix(volume.emptyDir as Record<string, unknown>);
  return copy;
}

function applyStaticPodTreatment(defaulted: Pod, origin: ManifestOrigin): Pod {
  const uid = defaulted.metadata.uid ? defaulted.metadata.uid : staticPodUid(defaulted, origin);
  const pod = structuredClone(defaulted);
  pod.metadata = {
    ...pod.metadata,
    uid,
    // An empty name stays empty, so validation reports it as required rather than as "-node".
    name: pod.metadata.name ? staticPodName(pod.metadata.name, origin.nodeName) : '',
    namespace: pod.metadata.namespace ? pod.metadata.namespace : 'default',
    annotations: { ...pod.metadata.annotations, [CONFIG_HASH_ANNOTATION]: uid, [CONFIG_SOURCE_ANNOTATION]: origin.source },
  };
  pod.spec.nodeName = origin.nodeName;
  if (origin.source === 'file') addToleration(pod, STATIC_POD_TOLERATION);
  pod.status = { ...pod.status, phase: 'Pending' };
  return pod;
}

/** Go's AddOrUpdateTolerationInPod: an identical toleration is not added twice. */
function addToleration(pod: Pod, toleration: Toleration): void {
  const tolerations = pod.spec.tolerations ?? [];
  const same = tolerations.some((t) => canonicalJson(t) === canonicalJson(toleration));
  if (!same) pod.spec.tolerations = [...tolerations, { ...toleration }];
}
