/**
 * Generated static pod manifests aimed at the node's file system: volume names, UIDs, hostPath
 * paths, item keys and paths, subPaths (and subPathExpr expansions) and mounts drawn from a pool of
 * path tricks (`..` runs of every length aimed at the decoys' names, `.`, `..data`, absolute paths,
 * NUL, ':', separators, over-long names) mixed with valid values, so that most pods are accepted
 * and their volumes really set up. hostPath paths all start at `sandbox`: a valid one may point
 * anywhere there, and only there.
 */
import fc from 'fast-check';

/** The names the decoy tree holds at every level, so a `..` run lands on something to harm. */
export const DECOY_NAMES = ['victim-vol', 'victim-uid', 'decoy'] as const;

const traversal = fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom(...DECOY_NAMES, 'decoy/precious.txt', ''))
  .map(([n, target]) => '../'.repeat(n) + target);

/** One path element or path of a person's (or an attacker's) making. */
const hostileText = fc.oneof(
  fc.constantFrom('..', '.', '', '...', '..data', '..x', '../', './x', 'a/b', 'a//b', '/abs', '/', 'a\0b', 'a:b', 'Bad_Name.x',
    'x'.repeat(64), 'x'.repeat(300), 'é', ' ', '-a', 'a-', 'A', 'a/..', 'a/../..'),
  traversal,
  fc.string({ maxLength: 10 }),
);

/** Mostly `valid`, now and then `hostile`: a pod has many fields, and most pods should get through. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>) => fc.oneof({ weight: 30, arbitrary: valid }, { weight: 1, arbitrary: hostile });

const validName = fc.constantFrom('data', 'cache', 'v1', 'd', 'logs', 'a-b');
const relativePath = mostly(fc.constantFrom('a', 'a/b', 'conf/app.yaml', '.hidden', 'x..y', 'd/'), hostileText);
const uid = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom('u1', 'A.b_c-1', 'x'.repeat(128))) },
  { weight: 1, arbitrary: fc.oneof(hostileText, fc.constantFrom('u1:a', 'x'.repeat(129))) },
);
const mode = mostly(fc.constantFrom(undefined, 0o644, 0o400, 0o777, 0), fc.constantFrom(0o1000, 0o4755, -1));

const fieldRef = fc.record({ fieldPath: mostly(fc.constantFrom('metadata.name', 'metadata.uid', 'metadata.labels', "metadata.annotations['a']"), fc.constant('spec.nodeName')) });
const downwardItems = fc.uniqueArray(fc.record({ path: relativePath, fieldRef, mode }, { requiredKeys: ['path', 'fieldRef'] }), { maxLength: 3, selector: (item) => item.path });
const keyItems = fc.uniqueArray(fc.record({ key: mostly(fc.constantFrom('k', 'tls.crt'), hostileText), path: relativePath, mode }, { requiredKeys: ['key', 'path'] }), { maxLength: 2, selector: (item) => item.path });

/** What a ConfigMap or Secret holds: keys as an API server might let them through (or a hostile one would). */
export const hostileObjectData = fc.dictionary(
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom('k', 'tls.crt', 'a', 'conf.yaml') }, { weight: 1, arbitrary: hostileText }),
  fc.string({ maxLength: 8 }), { maxKeys: 4 },
);

/**
 * One volume source. `apiObjects`: as an API pod would have them, ConfigMap, Secret and projected
 * sources (with tokens) as often as the others; a static pod may name none, so they are rare there.
 */
function source(sandbox: string, apiObjects: boolean): fc.Arbitrary<Record<string, unknown>> {
  // At most two elements after the sandbox: were validation to let `..` runs through, they would
  // still land in the decoy tree (the test puts the sandbox deeper than 16 levels), not on the host.
  const hostPath = fc.record({
    path: fc.oneof(
      { weight: 8, arbitrary: fc.array(mostly(fc.constantFrom('a', 'b', 'new', 'f.txt'), hostileText), { minLength: 0, maxLength: 2 }).map((parts) => [sandbox, ...parts].join('/')) },
      { weight: 1, arbitrary: fc.constantFrom('', 'relative/dir', `${sandbox}/../decoy`, `${sandbox}/a/../../victim-vol`) },
    ),
    type: mostly(fc.constantFrom(undefined, '', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket'), fc.constant('Folder')),
  }, { requiredKeys: ['path'] });
  const emptyDir = fc.record({
    medium: mostly(fc.constantFrom(undefined, '', 'Memory'), fc.constantFrom('HugePages', 'Disk')),
    sizeLimit: mostly(fc.constantFrom(undefined, '1Mi'), fc.constantFrom('-1', 'lots', 5)),
  });
  return fc.oneof(
    { weight: 8, arbitrary: emptyDir.map((emptyDir) => ({ emptyDir })) },
    { weight: 6, arbitrary: hostPath.map((hostPath) => ({ hostPath })) },
    { weight: 6, arbitrary: fc.record({ items: downwardItems, defaultMode: mode }).map((downwardAPI) => ({ downwardAPI })) },
    { weight: 4, arbitrary: downwardItems.map((items) => ({ projected: { sources: [{ downwardAPI: { items } }] } })) },
    { weight: apiObjects ? 6 : 1, arbitrary: fc.record({ items: keyItems, defaultMode: mode }).map((configMap) => ({ configMap: { name: 'c', ...configMap } })) },
    { weight: apiObjects ? 6 : 1, arbitrary: fc.record({ items: keyItems, defaultMode: mode }).map((secret) => ({ secret: { secretName: 's', ...secret } })) },
    { weight: apiObjects ? 4 : 1, arbitrary: fc.tuple(keyItems, keyItems, relativePath).map(([cmItems, secretItems, tokenPath]) => ({ projected: { sources: [
      { configMap: { name: 'c', items: cmItems } }, { secret: { name: 's', items: secretItems } }, { serviceAccountToken: { path: tokenPath } },
    ] } })) },
    { weight: 1, arbitrary: fc.tuple(emptyDir, hostPath).map(([emptyDir, hostPath]) => ({ emptyDir, hostPath })) },
    { weight: 2, arbitrary: fc.constant({}) },
  );
}

/** The `index`th mount of a container: at its own path, unless the path is a hostile one. */
const mount = (names: string[], index: number) => fc.record({
  name: mostly(fc.constantFrom(...names), fc.oneof(validName, hostileText)),
  mountPath: mostly(fc.constant(`/m/${index}`), fc.oneof(fc.constant('/m/0'), hostileText)),
  sub: fc.oneof(
    { weight: 6, arbitrary: fc.constant({}) },
    { weight: 3, arbitrary: relativePath.map((subPath) => ({ subPath })) },
    { weight: 2, arbitrary: fc.constantFrom('$(SUB)', 'x/$(SUB)', '$(NOPE)').map((subPathExpr) => ({ subPathExpr })) },
    { weight: 1, arbitrary: fc.constant({ subPath: 'a', subPathExpr: '$(SUB)' }) },
  ),
}).map(({ sub, ...rest }) => ({ ...rest, ...sub }));

/** A pod manifest (apiVersion v1, kind Pod) aimed at the node's files; `apiObjects` as for `source`. */
export function hostilePodManifest(sandbox: string, opts: { apiObjects?: boolean } = {}): fc.Arbitrary<Record<string, unknown>> {
  return fc.record({
    uid,
    fsGroup: mostly(fc.constantFrom(undefined, 4242, 0), fc.constantFrom(-1, 2 ** 32)),
    // Each volume named after its place (`v0`, `v1`…), now and then a hostile name or a repeat of the first.
    volumes: fc.array(fc.tuple(mostly(fc.constant(undefined), fc.oneof(hostileText, fc.constant('v0'))), source(sandbox, opts.apiObjects === true)), { maxLength: 4 })
      .map((drawn) => drawn.map(([hostile, src], i) => ({ name: hostile ?? `v${i}`, ...src }))),
    sub: mostly(fc.constantFrom('a', 'a/b'), hostileText),
    containers: fc.integer({ min: 1, max: 2 }),
  }).chain(({ uid: podUid, fsGroup, volumes, sub, containers }) => {
    const names = volumes.map((v) => v.name);
    const mounts = fc.integer({ min: 0, max: names.length === 0 ? 0 : 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => mount(names, i))));
    return fc.array(mounts, { minLength: containers, maxLength: containers }).map((perContainer) => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'fuzz', annotations: { a: 'x' }, ...(podUid !== undefined ? { uid: podUid } : {}) },
      spec: {
        ...(fsGroup !== undefined ? { securityContext: { fsGroup } } : {}),
        volumes,
        containers: perContainer.map((volumeMounts, i) => ({ name: `c${i}`, image: 'busybox:1.0', env: [{ name: 'SUB', value: sub }], volumeMounts })),
      },
    }));
  });
}
