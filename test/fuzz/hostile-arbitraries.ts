/**
 * The fuzz suite's generators, shared by its in-process half (hostile-input.fuzz.test.ts) and its
 * binary half (hostile-binary.fuzz.test.ts): command lines, KubeletConfiguration files and static
 * pod manifests with odd values anywhere. The seed changes every run and is printed; FUZZ_SEED=<n>
 * repeats a run.
 */
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { FLAG_TABLE } from '../../src/domain/config/flag-table.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
process.stdout.write(`fuzz seed ${FUZZ_SEED} (FUZZ_SEED=${FUZZ_SEED} repeats this run)\n`);

// Values of every shape a person or a broken tool might write.
export const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '0', '-1', '1s', '-10s', '1h2m', '10x', 'abc', '1e309', 'NaN', 'true', 'yes', '10Mi', '-5Mi', '1.5.5Gi',
    'a=b,c=d', 'k=v:NoSchedule', 'a:Explode', '::1', '0010.1.1.1', '300.1.1.1', '%', '100%', '∞', '\u0000', 'x'.repeat(300)),
  fc.integer().map(String),
  fc.double().map(String),
);
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(oddText, { maxLength: 3 }),
  fc.dictionary(oddText, oddText, { maxKeys: 3 }),
);

const FLAGS = FLAG_TABLE.filter((f) => !('meta' in f.target));
const CONFIG_FIELDS = [
  'enableServer', 'staticPodPath', 'syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'staticPodURL', 'staticPodURLHeader',
  'address', 'port', 'readOnlyPort', 'authentication', 'authorization', 'healthzPort', 'healthzBindAddress', 'oomScoreAdj', 'clusterDNS',
  'nodeStatusUpdateFrequency', 'nodeLeaseDurationSeconds', 'imageGCHighThresholdPercent', 'imageGCLowThresholdPercent', 'cgroupDriver',
  'cpuManagerPolicy', 'memoryManagerPolicy', 'qosReserved', 'maxPods', 'podPidsLimit', 'evictionHard', 'evictionSoft',
  'evictionSoftGracePeriod', 'kubeReserved', 'systemReserved', 'containerLogMaxSize', 'containerLogMaxFiles', 'featureGates',
  'registerWithTaints', 'allowedUnsafeSysctls', 'reservedMemory', 'shutdownGracePeriod', 'kubeAPIQPS', 'kubeAPIBurst', 'bogusField',
];

function flagArgsOf(flags: typeof FLAGS) {
  return fc.array(
    fc.record({ flag: fc.constantFrom(...flags), value: oddText, form: fc.constantFrom('=', ' ') }),
    { maxLength: 5 },
  ).map((chosen) => chosen.flatMap(({ flag, value, form }) => (form === '=' ? [`--${flag.name}=${value}`] : [`--${flag.name}`, value])));
}
/** Up to five flags of the table, with odd values, as `--name=value` or `--name value`. */
export const flagArgs = flagArgsOf(FLAGS);

const configDoc = fc.record({
  apiVersion: fc.oneof(fc.constant('kubelet.config.k8s.io/v1beta1'), oddText),
  kind: fc.oneof(fc.constant('KubeletConfiguration'), oddText),
  fields: fc.dictionary(fc.constantFrom(...CONFIG_FIELDS), oddValue, { maxKeys: 6 }),
}).map(({ apiVersion, kind, fields }) => ({ apiVersion, kind, ...fields }));

export const configText = fc.oneof(
  { weight: 6, arbitrary: configDoc.chain((doc) => fc.constantFrom(toYaml(doc), JSON.stringify(doc))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
);

const podish = fc.record({
  apiVersion: fc.oneof({ weight: 4, arbitrary: fc.constant('v1') }, oddText),
  kind: fc.oneof({ weight: 4, arbitrary: fc.constant('Pod') }, oddText),
  metadata: fc.oneof(
    { weight: 4, arbitrary: fc.record({ name: fc.oneof(fc.constantFrom('web', 'a-b', 'x'), oddText), namespace: fc.option(oddText, { nil: undefined }), labels: fc.option(fc.dictionary(oddText, oddText, { maxKeys: 2 }), { nil: undefined }) }, { requiredKeys: ['name'] }) },
    oddValue,
  ),
  spec: fc.oneof(
    { weight: 4, arbitrary: fc.record({
      containers: fc.oneof(
        { weight: 4, arbitrary: fc.array(fc.record({ name: fc.oneof(fc.constant('main'), oddText), image: fc.oneof(fc.constant('busybox:1.0'), oddText), command: fc.option(fc.array(oddText, { maxLength: 3 }), { nil: undefined }), ports: fc.option(oddValue, { nil: undefined }), resources: fc.option(oddValue, { nil: undefined }) }, { requiredKeys: ['name', 'image'] }), { maxLength: 3 }) },
        oddValue,
      ),
      restartPolicy: fc.option(oddText, { nil: undefined }),
      terminationGracePeriodSeconds: fc.option(oddValue, { nil: undefined }),
      hostNetwork: fc.option(oddValue, { nil: undefined }),
    }, { requiredKeys: ['containers'] }) },
    oddValue,
  ),
});
/**
 * A pod that runs (on the test image, sleeping), with at most one field of a person's making:
 * most of these are valid, so pods start and their names collide with each other's.
 */
const SLEEPER = { name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] };
const nearlyValidPod = fc.record({
  name: fc.constantFrom('web', 'db', 'cache', 'x', 'a-b'),
  change: fc.option(fc.oneof(
    fc.record({ at: fc.constant('labels'), value: fc.dictionary(fc.oneof(fc.constantFrom('app', 'tier', 'a.b/c'), oddText), oddText, { maxKeys: 3 }) }),
    fc.record({ at: fc.constantFrom('restartPolicy', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'hostNetwork', 'priority'), value: oddValue }),
    fc.record({ at: fc.constantFrom('ports', 'env', 'resources', 'readinessProbe', 'workingDir'), value: oddValue }),
  ), { nil: undefined }),
}).map(({ name, change }) => {
  const container: Record<string, unknown> = { ...SLEEPER };
  const spec: Record<string, unknown> = { terminationGracePeriodSeconds: 2, containers: [container] };
  const metadata: Record<string, unknown> = { name };
  if (change?.at === 'labels') metadata.labels = change.value;
  else if (change && ['ports', 'env', 'resources', 'readinessProbe', 'workingDir'].includes(change.at)) container[change.at] = change.value;
  else if (change) spec[change.at] = change.value;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
});
export const manifestText = fc.oneof(
  { weight: 6, arbitrary: podish.chain((pod) => fc.constantFrom(toYaml(pod), JSON.stringify(pod))) },
  { weight: 2, arbitrary: nearlyValidPod.chain((pod) => fc.constantFrom(toYaml(pod), JSON.stringify(pod))) },
  { weight: 1, arbitrary: fc.string({ maxLength: 400 }) },
  { weight: 1, arbitrary: fc.constantFrom('a: &x [*x]', 'a: *nope', '{"a": 1, "a": 2}', '---\n---\n', 'kind: Pod\n---\nkind: Pod\n', '\uFEFFkind: Pod', '[', 'null') },
);

/**
 * Flags a started binary may be given: not those that point it at files, sockets, servers or
 * ports (the binary half sets those itself, to private paths and nothing listening), nor
 * --runonce, whose exit 0 is its purpose.
 */
const NOT_FOR_A_STARTED_BINARY = new Set([
  'config', 'config-dir', 'kubeconfig', 'bootstrap-kubeconfig', 'cert-dir', 'root-dir', 'lock-file', 'exit-on-lock-contention',
  'pod-manifest-path', 'manifest-url', 'manifest-url-header', 'event-log', 'debug-address', 'address', 'port', 'read-only-port',
  'healthz-port', 'healthz-bind-address', 'enable-server', 'container-runtime-endpoint', 'image-service-endpoint', 'tls-cert-file',
  'tls-private-key-file', 'client-ca-file', 'volume-plugin-dir', 'resolv-conf', 'runonce', 'experimental-mounter-path', 'cloud-config',
  'image-credential-provider-config', 'image-credential-provider-bin-dir',
]);
export const binaryFlagArgs = flagArgsOf(FLAGS.filter((f) => !NOT_FOR_A_STARTED_BINARY.has(f.name)));
