/**
 * The JSON types of a manifest's Pod fields, checked before anything reads the pod as one: Go's
 * decoder refuses a value of the wrong type for any field it knows (`cannot unmarshal number into
 * Go struct field Container.spec.containers.readinessProbe of type v1.Probe`); without this, the
 * defaults and the validation would take a number for a probe or a list and throw.
 *
 * Covered: every field of src/domain/pod/types.ts's Pod on the metadata and spec side (status is
 * not read from a manifest). Unknown fields are left alone, as Go's decoder leaves them. A null is
 * an absent value, as in Go (withoutNulls). The first wrong value found is reported, by its path.
 */

import { isPlainObject as isObject } from '../config/decode.js';
import { VOLUME_SOURCE_KEYS } from './validate-volume-sources.js';

type Shape =
  | 'string' | 'integer' | 'boolean' | 'quantity' | 'intOrString'
  | { object: Record<string, Shape> }
  | { list: Shape }
  | { map: 'string' | 'quantity' };

const str = 'string';
const int = 'integer';
const bool = 'boolean';
const strings: Shape = { list: str };
const object = (fields: Record<string, Shape>): Shape => ({ object: fields });
const list = (item: Shape): Shape => ({ list: item });
const named = object({ name: str });

const resourceList: Shape = { map: 'quantity' };
const resources = object({ requests: resourceList, limits: resourceList, claims: list(named) });
const seLinuxOptions = object({ user: str, role: str, type: str, level: str });
const seccompProfile = object({ type: str, localhostProfile: str });
const windowsOptions = object({ gmsaCredentialSpecName: str, gmsaCredentialSpec: str, runAsUserName: str, hostProcess: bool });
const keySelector = object({ name: str, key: str, optional: bool });
const optionalRef = object({ name: str, optional: bool });
const fieldRef = object({ apiVersion: str, fieldPath: str });
const resourceFieldRef = object({ containerName: str, resource: str, divisor: 'quantity' });
const envVar = object({
  name: str, value: str,
  valueFrom: object({
    fieldRef, resourceFieldRef,
    configMapKeyRef: keySelector,
    secretKeyRef: keySelector,
  }),
});
const httpGet = object({ path: str, port: 'intOrString', host: str, scheme: str, httpHeaders: list(object({ name: str, value: str })) });
const actions = { exec: object({ command: strings }), httpGet, tcpSocket: object({ port: 'intOrString', host: str }) };
const handler = object({ ...actions, sleep: object({ seconds: int }) });
const probe = object({
  ...actions, grpc: object({ port: int, service: str }),
  initialDelaySeconds: int, timeoutSeconds: int, periodSeconds: int, successThreshold: int, failureThreshold: int, terminationGracePeriodSeconds: int,
});
const container = object({
  name: str, image: str, imagePullPolicy: str, command: strings, args: strings, workingDir: str,
  ports: list(object({ name: str, containerPort: int, hostPort: int, protocol: str, hostIP: str })),
  env: list(envVar),
  envFrom: list(object({ prefix: str, configMapRef: optionalRef, secretRef: optionalRef })),
  resources, restartPolicy: str,
  restartPolicyRules: list(object({ action: str, exitCodes: object({ operator: str, values: list(int) }) })),
  volumeMounts: list(object({ name: str, mountPath: str, readOnly: bool, subPath: str, subPathExpr: str, mountPropagation: str })),
  securityContext: object({
    runAsUser: int, runAsGroup: int, runAsNonRoot: bool, readOnlyRootFilesystem: bool, privileged: bool, allowPrivilegeEscalation: bool,
    capabilities: object({ add: strings, drop: strings }), seLinuxOptions, seccompProfile, procMount: str, windowsOptions,
  }),
  livenessProbe: probe, readinessProbe: probe, startupProbe: probe,
  lifecycle: object({ postStart: handler, preStop: handler }),
  terminationMessagePath: str, terminationMessagePolicy: str, stdin: bool, stdinOnce: bool, tty: bool,
});
const keyToPath = object({ key: str, path: str, mode: int });
const downwardApiFile = object({ path: str, mode: int, fieldRef, resourceFieldRef });
const keyedProjection = object({ name: str, items: list(keyToPath), optional: bool });
/** The sources kubelet-ts mounts field by field (their values are validated, then the plugins read them); every other source only as an object. */
const volume = object({
  ...Object.fromEntries(VOLUME_SOURCE_KEYS.map((key) => [key, object({})])),
  name: str,
  emptyDir: object({ medium: str, sizeLimit: 'quantity' }),
  hostPath: object({ path: str, type: str }),
  gitRepo: object({ repository: str, revision: str, directory: str }),
  configMap: object({ name: str, items: list(keyToPath), defaultMode: int, optional: bool }),
  secret: object({ secretName: str, items: list(keyToPath), defaultMode: int, optional: bool }),
  downwardAPI: object({ items: list(downwardApiFile), defaultMode: int }),
  projected: object({
    defaultMode: int,
    sources: list(object({
      secret: keyedProjection, configMap: keyedProjection, downwardAPI: object({ items: list(downwardApiFile) }),
      serviceAccountToken: object({ audience: str, expirationSeconds: int, path: str }),
    })),
  }),
});
const selectorRequirements = list(object({ key: str, operator: str, values: strings }));
const nodeSelectorTerm = object({ matchExpressions: selectorRequirements, matchFields: selectorRequirements });

const METADATA = object({
  name: str, namespace: str, uid: str, generateName: str, labels: { map: 'string' }, annotations: { map: 'string' },
  ownerReferences: list(object({ apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool })),
});

const SPEC = object({
  containers: list(container), initContainers: list(container), ephemeralContainers: list(container),
  restartPolicy: str, terminationGracePeriodSeconds: int, activeDeadlineSeconds: int, dnsPolicy: str,
  dnsConfig: object({ nameservers: strings, searches: strings, options: list(object({ name: str, value: str })) }),
  nodeName: str, serviceAccountName: str, serviceAccount: str, automountServiceAccountToken: bool,
  hostNetwork: bool, hostPID: bool, hostIPC: bool, shareProcessNamespace: bool, hostUsers: bool, hostname: str, subdomain: str, setHostnameAsFQDN: bool,
  hostAliases: list(object({ ip: str, hostnames: strings })),
  securityContext: object({
    runAsUser: int, runAsGroup: int, runAsNonRoot: bool, supplementalGroups: list(int), fsGroup: int,
    sysctls: list(object({ name: str, value: str })), seLinuxOptions, seccompProfile, windowsOptions, fsGroupChangePolicy: str,
  }),
  volumes: list(volume),
  priority: int, priorityClassName: str, runtimeClassName: str, schedulerName: str, enableServiceLinks: bool,
  tolerations: list(object({ key: str, operator: str, value: str, effect: str, tolerationSeconds: int })),
  nodeSelector: { map: 'string' },
  affinity: object({
    nodeAffinity: object({
      requiredDuringSchedulingIgnoredDuringExecution: object({ nodeSelectorTerms: list(nodeSelectorTerm) }),
      preferredDuringSchedulingIgnoredDuringExecution: list(object({ weight: int, preference: nodeSelectorTerm })),
    }),
    podAffinity: object({}), podAntiAffinity: object({}),
  }),
  os: named, overhead: resourceList, resources, imagePullSecrets: list(named),
  readinessGates: list(object({ conditionType: str })),
});

function fits(shape: 'string' | 'integer' | 'boolean' | 'quantity' | 'intOrString', v: unknown): boolean {
  switch (shape) {
    case 'string': return typeof v === 'string';
    case 'integer': return Number.isSafeInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'quantity': return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
    case 'intOrString': return typeof v === 'string' || Number.isSafeInteger(v);
  }
}

const WANTED = { string: 'a string', integer: 'an integer', boolean: 'a boolean', quantity: 'a quantity', intOrString: 'an integer or a string' } as const;

function describe(shape: Shape): string {
  if (typeof shape === 'string') return WANTED[shape];
  if ('map' in shape) return `a map of ${shape.map === 'string' ? 'strings' : 'quantities'}`;
  return 'list' in shape ? 'a list' : 'an object';
}

/** The first value of `v` that does not have its field's JSON type, as `path: must be …`; null when none. */
function check(shape: Shape, v: unknown, path: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof shape === 'string') return fits(shape, v) ? null : `${path}: must be ${describe(shape)}`;
  if ('map' in shape) return isObject(v) && Object.values(v).every((x) => fits(shape.map, x)) ? null : `${path}: must be ${describe(shape)}`;
  if ('list' in shape) {
    if (!Array.isArray(v)) return `${path}: must be a list`;
    for (const [i, item] of v.entries()) {
      // A list's element may not be null: the kubelet reads (and the defaults write) each one.
      if (item === null) return `${path}[${i}]: must be ${describe(shape.list)}`;
      const error = check(shape.list, item, `${path}[${i}]`);
      if (error) return error;
    }
    return null;
  }
  if (!isObject(v)) return `${path}: must be an object`;
  for (const [key, field] of Object.entries(shape.object)) {
    const error = check(field, v[key], path ? `${path}.${key}` : key);
    if (error) return error;
  }
  return null;
}

/** A manifest's metadata checked field by field for its JSON type: the first wrong value, or null. */
export function metadataShapeError(metadata: unknown): string | null {
  return check(METADATA, metadata, 'metadata');
}

/** The same for its spec. */
export function specShapeError(spec: unknown): string | null {
  return check(SPEC, spec, 'spec');
}

/**
 * The manifest with every member whose value is null left out: Go decodes a null into a field's
 * zero value (an absent pointer), and the kubelet reads an absent field that way. (A null in a
 * list is refused above; in a map it is not a string.)
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withoutNulls(item)) as T;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null) out[key] = withoutNulls(member);
  return out as T;
}
