/**
 * Every command-line flag, in one table: the Go kubelet's (cmd/kubelet/app/options: KubeletFlags.AddFlags,
 * ContainerRuntimeOptions.AddFlags, AddKubeletConfigFlags, the logging flags of component-base
 * logs/api/v1, and the global --version/--help/--housekeeping-interval), the deprecated ones the Go
 * kubelet still registers, and kubelet-ts's own (`ours`). Parsing, --help and the precedence of
 * flags over the config file all derive from this table.
 *
 * Help texts are our own short wording. `deprecated` holds the notice printed when the flag is used.
 */
import type { KubeletFlags } from './types.js';

export type FlagKind =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'duration'
  | 'ip'
  | 'quantity'
  | 'stringSlice'
  | 'mapStringString'
  | 'mapStringStringNoSplit'
  | 'mapStringBool'
  | 'langleMap'
  | 'colonMultimap'
  | 'taints'
  | 'reservedMemory'
  | 'vmodule';

export type FlagTarget =
  | { config: string }
  | { flags: keyof KubeletFlags }
  | { meta: 'help' | 'version' };

export interface FlagSpec {
  /** Canonical name, dashes only (underscores on the command line are normalised to dashes). */
  name: string;
  short?: string;
  kind: FlagKind;
  target: FlagTarget;
  help: string;
  deprecated?: string;
  /** kubelet-ts's own flag; not in the Go kubelet. */
  ours?: boolean;
}

/** Go's notice for every KubeletConfiguration-backed flag (all are deprecated in favour of --config). */
const CONFIG_FILE_NOTICE =
  'This parameter should be set via the config file specified by the Kubelet\'s --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.';

const flag = (name: string, kind: FlagKind, target: keyof KubeletFlags, help: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name, kind, target: { flags: target }, help, ...extra,
});
/** A KubeletConfiguration-backed flag: deprecated in favour of the config file, like in Go. */
const cfg = (name: string, kind: FlagKind, path: string, help: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name, kind, target: { config: path }, help, deprecated: CONFIG_FILE_NOTICE, ...extra,
});
/** A KubeletConfiguration-backed flag that Go keeps undeprecated (logging, provider-id). */
const cfgKept = (name: string, kind: FlagKind, path: string, help: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name, kind, target: { config: path }, help, ...extra,
});

export const FLAG_TABLE: readonly FlagSpec[] = [
  // --- global ---
  { name: 'help', short: 'h', kind: 'bool', target: { meta: 'help' }, help: 'Print this help and exit.' },
  { name: 'version', kind: 'string', target: { meta: 'version' }, help: 'Print version information and exit; --version=raw prints it in full.' },
  flag('housekeeping-interval', 'duration', 'housekeepingInterval', 'Interval between container housekeepings (cAdvisor).'),

  // --- KubeletFlags ---
  flag('config', 'string', 'kubeletConfigFile', 'Load the initial KubeletConfiguration from this file (relative paths start at the working directory). Flags given on the command line override it. Without it, built-in defaults apply.'),
  flag('config-dir', 'string', 'kubeletDropinConfigDirectory', 'Directory of drop-in configuration files (*.conf, lexical order), each merged over --config.'),
  flag('kubeconfig', 'string', 'kubeconfig', 'kubeconfig file for reaching the API server. Without it the kubelet runs standalone.'),
  flag('bootstrap-kubeconfig', 'string', 'bootstrapKubeconfig', 'kubeconfig used to obtain a client certificate when the --kubeconfig file does not exist yet; the result is written to --kubeconfig and the key pair to --cert-dir.'),
  flag('hostname-override', 'string', 'hostnameOverride', 'Use this name to identify the node instead of the host name.'),
  flag('node-ip', 'string', 'nodeIP', 'The node\'s IP address, or a comma-separated IPv4/IPv6 pair for dual-stack. Unset: the default IPv4 address, else the default IPv6 address; \'::\' prefers IPv6.'),
  flag('cert-dir', 'string', 'certDirectory', 'Directory holding the TLS certificates. Ignored when --tls-cert-file and --tls-private-key-file are given.'),
  flag('cloud-provider', 'string', 'cloudProvider', 'Cloud provider: empty for none, \'external\' for an external provider (which then names the node).'),
  flag('root-dir', 'string', 'rootDirectory', 'Directory for the kubelet\'s files (pod data, volume mounts, plugins).'),
  flag('seccomp-default', 'bool', 'seccompDefault', 'Use RuntimeDefault as the default seccomp profile for every workload (in effect when this or the config\'s seccompDefault is true).'),
  flag('node-labels', 'mapStringString', 'nodeLabels', 'Labels to add when the node registers, as key=value pairs separated by commas. Labels in the kubernetes.io and k8s.io namespaces must be ones the kubelet is allowed to set.'),
  flag('lock-file', 'string', 'lockFilePath', '<Warning: Alpha feature> File the kubelet locks so that only one kubelet runs at a time.'),
  flag('exit-on-lock-contention', 'bool', 'exitOnLockContention', 'Exit when another process contends for the lock file.'),
  flag('runtime-cgroups', 'string', 'runtimeCgroups', 'Absolute name of the cgroup to create and run the container runtime in.'),
  flag('pod-infra-container-image', 'string', 'podInfraContainerImage', 'Image that image garbage collection must never remove. The runtime chooses its own sandbox image.', { deprecated: 'will be removed in 1.35. Image garbage collector will get sandbox image information from CRI.' }),
  flag('image-credential-provider-config', 'string', 'imageCredentialProviderConfigPath', 'Credential provider plugin configuration: a file (JSON/YAML) or a directory of them, merged in lexical order.'),
  flag('image-credential-provider-bin-dir', 'string', 'imageCredentialProviderBinDir', 'Directory holding the credential provider plugin binaries.'),
  flag('minimum-container-ttl-duration', 'duration', 'minimumGCAge', 'Minimum age of a finished container before garbage collection.', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  flag('maximum-dead-containers-per-container', 'int32', 'maxPerPodContainerCount', 'How many old instances of each container to keep.', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  flag('maximum-dead-containers', 'int32', 'maxContainerCount', 'How many old container instances to keep in total; negative disables the limit.', { deprecated: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.' }),
  flag('register-schedulable', 'bool', 'registerSchedulable', 'Register the node as schedulable (no effect when --register-node is false).', { deprecated: 'will be removed in a future version' }),
  flag('keep-terminated-pod-volumes', 'bool', 'keepTerminatedPodVolumes', 'Keep the volumes of terminated pods mounted (for debugging).', { deprecated: 'will be removed in a future version' }),
  flag('experimental-mounter-path', 'string', 'experimentalMounterPath', '[Experimental] Path of the mount binary; empty uses the default.', { deprecated: 'will be removed in 1.25 or later. in favor of using CSI.' }),
  flag('cloud-config', 'string', 'cloudConfigFile', 'Cloud provider configuration file; empty for none.', { deprecated: 'will be removed in 1.25 or later, in favor of removing cloud provider code from Kubelet.' }),
  flag('experimental-allocatable-ignore-eviction', 'bool', 'experimentalNodeAllocatableIgnoreEvictionThreshold', 'Leave hard eviction thresholds out of the node allocatable computation.', { deprecated: 'will be removed in 1.25 or later.' }),

  // --- KubeletConfiguration ---
  cfg('enable-server', 'bool', 'enableServer', 'Serve the kubelet API.'),
  cfg('fail-swap-on', 'bool', 'failSwapOn', 'Refuse to start when swap is enabled on the node.'),
  cfg('pod-manifest-path', 'string', 'staticPodPath', 'Directory of static pod files (or one such file) to run; files starting with a dot are ignored.'),
  cfg('sync-frequency', 'duration', 'syncFrequency', 'Longest time between two syncs of running containers with their configuration.'),
  cfg('file-check-frequency', 'duration', 'fileCheckFrequency', 'How often static pod files are checked for changes.'),
  cfg('http-check-frequency', 'duration', 'httpCheckFrequency', 'How often the --manifest-url is checked for changes.'),
  cfg('manifest-url', 'string', 'staticPodURL', 'URL serving more static pod specifications to run.'),
  cfg('manifest-url-header', 'colonMultimap', 'staticPodURLHeader', 'HTTP headers for --manifest-url as name:value pairs separated by commas; repeatable, repeated names keep every value in order.'),
  cfg('address', 'ip', 'address', 'IP address the kubelet API listens on (\'0.0.0.0\' or \'::\' for all).'),
  cfg('port', 'int32', 'port', 'Port of the kubelet API.'),
  cfg('read-only-port', 'int32', 'readOnlyPort', 'Port of the unauthenticated read-only API; 0 disables it.'),
  cfg('container-runtime-endpoint', 'string', 'containerRuntimeEndpoint', 'CRI runtime endpoint, e.g. unix:///run/containerd/containerd.sock. kubelet-ts also accepts \'embedded\' for its in-process runtime.'),
  cfg('image-service-endpoint', 'string', 'imageServiceEndpoint', 'CRI image service endpoint; defaults to --container-runtime-endpoint.'),
  cfg('anonymous-auth', 'bool', 'authentication.anonymous.enabled', 'Treat requests no authenticator rejects as system:anonymous in group system:unauthenticated.'),
  cfg('authentication-token-webhook', 'bool', 'authentication.webhook.enabled', 'Authenticate bearer tokens with the TokenReview API.'),
  cfg('authentication-token-webhook-cache-ttl', 'duration', 'authentication.webhook.cacheTTL', 'How long TokenReview answers are cached.'),
  cfg('client-ca-file', 'string', 'authentication.x509.clientCAFile', 'CA bundle: a client certificate it signed authenticates as its CommonName.'),
  cfg('authorization-mode', 'string', 'authorization.mode', 'AlwaysAllow or Webhook (SubjectAccessReview).'),
  cfg('authorization-webhook-cache-authorized-ttl', 'duration', 'authorization.webhook.cacheAuthorizedTTL', 'How long \'authorized\' webhook answers are cached.'),
  cfg('authorization-webhook-cache-unauthorized-ttl', 'duration', 'authorization.webhook.cacheUnauthorizedTTL', 'How long \'unauthorized\' webhook answers are cached.'),
  cfg('tls-cert-file', 'string', 'tlsCertFile', 'Serving certificate (intermediates appended). Without it and --tls-private-key-file, a self-signed pair is generated in --cert-dir.'),
  cfg('tls-private-key-file', 'string', 'tlsPrivateKeyFile', 'Private key of --tls-cert-file.'),
  cfg('rotate-server-certificates', 'bool', 'serverTLSBootstrap', 'Request and rotate the serving certificate through the certificates API (needs the RotateKubeletServerCertificate gate and approval of the CSRs).'),
  cfg('tls-cipher-suites', 'stringSlice', 'tlsCipherSuites', 'Comma-separated cipher suites for the server; empty uses the defaults.'),
  cfg('tls-min-version', 'string', 'tlsMinVersion', 'Lowest TLS version accepted: VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13.'),
  cfg('rotate-certificates', 'bool', 'rotateCertificates', 'Renew the client certificate through the certificates API before it expires.'),
  cfg('registry-qps', 'int32', 'registryPullQPS', 'Image pulls per second when > 0; 0 means no limit.'),
  cfg('registry-burst', 'int32', 'registryBurst', 'Burst of image pulls allowed above --registry-qps (only with --registry-qps > 0).'),
  cfg('event-qps', 'int32', 'eventRecordQPS', 'Events created per second (>= 0).'),
  cfg('event-burst', 'int32', 'eventBurst', 'Burst of events allowed above --event-qps (>= 0).'),
  cfg('enable-debugging-handlers', 'bool', 'enableDebuggingHandlers', 'Serve logs, exec, attach and port-forward endpoints.'),
  cfg('contention-profiling', 'bool', 'enableContentionProfiling', 'Enable block profiling when profiling is on.'),
  cfg('healthz-port', 'int32', 'healthzPort', 'Port of the local healthz endpoint; 0 disables it.'),
  cfg('healthz-bind-address', 'ip', 'healthzBindAddress', 'IP address of the healthz endpoint (\'0.0.0.0\' or \'::\' for all).'),
  cfg('oom-score-adj', 'int32', 'oomScoreAdj', 'oom_score_adj of the kubelet process, in [-1000, 1000].'),
  cfg('cluster-domain', 'string', 'clusterDomain', 'Cluster DNS domain, added to every container\'s search list.'),
  cfg('volume-plugin-dir', 'string', 'volumePluginDir', 'Directory searched for third-party volume plugins.'),
  cfg('cluster-dns', 'stringSlice', 'clusterDNS', 'Comma-separated DNS server IPs for pods with dnsPolicy=ClusterFirst; all must serve the same records.'),
  cfg('streaming-connection-idle-timeout', 'duration', 'streamingConnectionIdleTimeout', 'Idle time after which a streaming connection is closed; 0 means never.'),
  cfg('node-status-update-frequency', 'duration', 'nodeStatusUpdateFrequency', 'How often the node status is computed and posted when changed; keep it consistent with the node controller\'s grace period.'),
  cfg('minimum-image-ttl-duration', 'duration', 'imageMinimumGCAge', 'Minimum age of an unused image before garbage collection.'),
  cfg('image-gc-high-threshold', 'int32', 'imageGCHighThresholdPercent', 'Disk usage percent at or above which image garbage collection always runs, in [0, 100]; 100 disables it.'),
  cfg('image-gc-low-threshold', 'int32', 'imageGCLowThresholdPercent', 'Disk usage percent image garbage collection frees down to, in [0, 100], below --image-gc-high-threshold.'),
  cfg('volume-stats-agg-period', 'duration', 'volumeStatsAggPeriod', 'How often volume disk usage is computed; negative disables it.'),
  cfg('feature-gates', 'mapStringBool', 'featureGates', 'Comma-separated Name=true|false pairs switching features on or off.'),
  cfg('kubelet-cgroups', 'string', 'kubeletCgroups', 'Absolute name of the cgroup to create and run the kubelet in.'),
  cfg('system-cgroups', 'string', 'systemCgroups', 'Absolute name of the cgroup for non-kernel processes not yet in a cgroup below \'/\'; needs --cgroup-root.'),
  cfgKept('provider-id', 'string', 'providerID', 'Identifier of the node in the machine database of its provider.'),
  cfg('cgroups-per-qos', 'bool', 'cgroupsPerQOS', 'Create the QoS and pod cgroup hierarchy.'),
  cfg('cgroup-driver', 'string', 'cgroupDriver', 'How the kubelet manipulates cgroups: cgroupfs or systemd.'),
  cfg('cgroup-root', 'string', 'cgroupRoot', 'Root cgroup for pods (best effort by the runtime); empty uses the runtime\'s default.'),
  cfg('cpu-manager-policy', 'string', 'cpuManagerPolicy', 'CPU manager policy: none or static.'),
  cfg('cpu-manager-policy-options', 'mapStringStringNoSplit', 'cpuManagerPolicyOptions', 'key=value options of the CPU manager policy; repeat the flag for several.'),
  cfg('cpu-manager-reconcile-period', 'duration', 'cpuManagerReconcilePeriod', 'CPU manager reconciliation period.'),
  cfg('qos-reserved', 'mapStringString', 'qosReserved', '<Warning: Alpha feature> resource=percentage pairs reserved at QoS level (memory only; needs the QOSReserved gate).'),
  cfg('topology-manager-policy', 'string', 'topologyManagerPolicy', 'Topology manager policy: none, best-effort, restricted or single-numa-node.'),
  cfg('runtime-request-timeout', 'duration', 'runtimeRequestTimeout', 'Timeout of runtime calls other than pull, logs, exec and attach.'),
  cfg('hairpin-mode', 'string', 'hairpinMode', 'Hairpin NAT setup: promiscuous-bridge, hairpin-veth or none.'),
  cfg('max-pods', 'int32', 'maxPods', 'Most pods this kubelet runs.'),
  cfg('pod-cidr', 'string', 'podCIDR', 'Pod IP range, used only in standalone mode.'),
  cfg('pod-max-pids', 'int64', 'podPidsLimit', 'Most processes per pod; -1 uses the node allocatable PID capacity.'),
  cfg('resolv-conf', 'string', 'resolvConf', 'Resolver configuration file containers\' DNS is based on.'),
  cfg('runonce', 'bool', 'runOnce', 'Run the static pods once and exit. Not supported: validation rejects it, as the Go kubelet does since 1.31.'),
  cfg('cpu-cfs-quota', 'bool', 'cpuCFSQuota', 'Enforce CPU limits with CFS quota.'),
  cfg('cpu-cfs-quota-period', 'duration', 'cpuCFSQuotaPeriod', 'CFS quota period (cpu.cfs_period_us); needs the CustomCPUCFSQuotaPeriod gate to differ from 100ms.'),
  cfg('enable-controller-attach-detach', 'bool', 'enableControllerAttachDetach', 'Leave volume attach/detach to the attach/detach controller.'),
  cfg('make-iptables-util-chains', 'bool', 'makeIPTablesUtilChains', 'Ensure the iptables utility chains exist on the host.'),
  cfg('iptables-masquerade-bit', 'int32', 'iptablesMasqueradeBit', 'No effect.', { deprecated: 'This flag has no effect and will be removed in a future version.' }),
  cfg('iptables-drop-bit', 'int32', 'iptablesDropBit', 'No effect.', { deprecated: 'This flag has no effect and will be removed in a future version.' }),
  cfg('container-log-max-size', 'string', 'containerLogMaxSize', 'Size (e.g. 10Mi) at which a container log file is rotated.'),
  cfg('container-log-max-files', 'int32', 'containerLogMaxFiles', 'Most log files kept per container (>= 2).'),
  cfg('allowed-unsafe-sysctls', 'stringSlice', 'allowedUnsafeSysctls', 'Comma-separated unsafe sysctls or patterns (ending in *) pods may set.'),
  cfg('node-status-max-images', 'int32', 'nodeStatusMaxImages', 'Most images listed in the node status; -1 for no cap.'),
  cfg('kernel-memcg-notification', 'bool', 'kernelMemcgNotification', 'Use kernel memcg notifications instead of polling for memory eviction thresholds.'),
  cfg('local-storage-capacity-isolation', 'bool', 'localStorageCapacityIsolation', 'Account and limit local ephemeral storage.'),
  cfg('max-open-files', 'int64', 'maxOpenFiles', 'Most files the kubelet process may open.'),
  cfg('kube-api-content-type', 'string', 'contentType', 'Content type of requests to the API server.'),
  cfg('kube-api-qps', 'int32', 'kubeAPIQPS', 'Queries per second to the API server (not events or heartbeats).'),
  cfg('kube-api-burst', 'int32', 'kubeAPIBurst', 'Burst of queries to the API server above --kube-api-qps.'),
  cfg('serialize-image-pulls', 'bool', 'serializeImagePulls', 'Pull one image at a time.'),
  cfg('eviction-hard', 'langleMap', 'evictionHard', 'Hard eviction thresholds, e.g. memory.available<1Gi, separated by commas. Replaces the default set.'),
  cfg('eviction-soft', 'langleMap', 'evictionSoft', 'Soft eviction thresholds, e.g. memory.available<1.5Gi, each held for its grace period before evicting.'),
  cfg('eviction-soft-grace-period', 'mapStringString', 'evictionSoftGracePeriod', 'Grace periods of the soft thresholds, e.g. memory.available=1m30s.'),
  cfg('eviction-pressure-transition-period', 'duration', 'evictionPressureTransitionPeriod', 'How long a pressure condition holds before it is cleared.'),
  cfg('eviction-max-pod-grace-period', 'int32', 'evictionMaxPodGracePeriod', 'Longest grace period (seconds) given to pods evicted for a soft threshold; negative defers to the pod.'),
  cfg('eviction-minimum-reclaim', 'mapStringString', 'evictionMinimumReclaim', 'Minimum amounts reclaimed when evicting, e.g. imagefs.available=2Gi.'),
  cfg('pods-per-core', 'int32', 'podsPerCore', 'Most pods per core, capped by --max-pods; 0 disables the limit.'),
  cfg('protect-kernel-defaults', 'bool', 'protectKernelDefaults', 'Fail when kernel tunables differ from the kubelet\'s expectations instead of changing them.'),
  cfg('reserved-cpus', 'string', 'reservedSystemCPUs', 'CPUs or CPU ranges reserved for system and Kubernetes daemons; supersedes the CPU of --system-reserved and --kube-reserved.'),
  cfg('topology-manager-scope', 'string', 'topologyManagerScope', 'Scope of topology hints: container or pod.'),
  cfg('topology-manager-policy-options', 'mapStringStringNoSplit', 'topologyManagerPolicyOptions', 'key=value options of the topology manager policy; repeat the flag for several.'),
  cfg('system-reserved', 'mapStringString', 'systemReserved', 'Resources reserved for non-Kubernetes components, e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000.'),
  cfg('kube-reserved', 'mapStringString', 'kubeReserved', 'Resources reserved for Kubernetes components, e.g. cpu=200m,memory=500Mi,ephemeral-storage=1Gi,pid=1000.'),
  cfg('enforce-node-allocatable', 'stringSlice', 'enforceNodeAllocatable', 'Node allocatable enforcement levels: none, pods, system-reserved, kube-reserved (and their -compressible forms).'),
  cfg('system-reserved-cgroup', 'string', 'systemReservedCgroup', 'Absolute name of the top-level cgroup enforcing --system-reserved.'),
  cfg('kube-reserved-cgroup', 'string', 'kubeReservedCgroup', 'Absolute name of the top-level cgroup enforcing --kube-reserved.'),
  cfg('memory-manager-policy', 'string', 'memoryManagerPolicy', 'Memory manager policy: None or Static.'),
  cfg('reserved-memory', 'reservedMemory', 'reservedMemory', 'Memory reserved per NUMA node, e.g. 0:memory=1Gi,hugepages-1M=2Gi; repeat the flag per node.'),
  cfg('register-node', 'bool', 'registerNode', 'Register the node with the API server (irrelevant without --kubeconfig).'),
  cfg('register-with-taints', 'taints', 'registerWithTaints', 'Taints to register the node with, as <key>=<value>:<effect> separated by commas (no effect when --register-node is false).'),

  // --- logging (component-base logs/api/v1) ---
  cfg('logging-format', 'string', 'logging.format', 'Log format: text or json.'),
  cfgKept('log-flush-frequency', 'duration', 'logging.flushFrequency', 'Longest time between log flushes.'),
  cfgKept('v', 'uint32', 'logging.verbosity', 'Log verbosity level.', { short: 'v' }),
  cfgKept('vmodule', 'vmodule', 'logging.vmodule', 'Per-file verbosity as pattern=N pairs separated by commas (text format only).'),
  cfg('log-text-split-stream', 'bool', 'logging.options.text.splitStream', '[Alpha] Text format: errors to stderr, info to stdout (needs LoggingAlphaOptions).'),
  cfg('log-text-info-buffer-size', 'quantity', 'logging.options.text.infoBufferSize', '[Alpha] Text format with split streams: buffer size of the info stream (needs LoggingAlphaOptions).'),
  cfg('log-json-split-stream', 'bool', 'logging.options.json.splitStream', '[Alpha] JSON format: errors to stderr, info to stdout (needs LoggingAlphaOptions).'),
  cfg('log-json-info-buffer-size', 'quantity', 'logging.options.json.infoBufferSize', '[Alpha] JSON format with split streams: buffer size of the info stream (needs LoggingAlphaOptions).'),

  // --- kubelet-ts ---
  {
    name: 'max-parallel-image-pulls', kind: 'int32', target: { config: 'maxParallelImagePulls' }, ours: true,
    help: 'Most image pulls in parallel (needs --serialize-image-pulls=false). The Go kubelet has this only in the config file.',
  },
  flag('event-log', 'string', 'eventLog', 'Event journal file or directory; empty turns the journal off. Default: <root-dir>/events/.', { ours: true }),
  flag('device-plugins-dir', 'string', 'devicePluginsDir', 'Directory of the device plugin API: kubelet.sock, the plugins\' sockets and the device checkpoint (the Go kubelet\'s fixed /var/lib/kubelet/device-plugins, whatever --root-dir says). Give <root-dir>/device-plugins to run several kubelets on one host.', { ours: true }),
  flag('debug-address', 'string', 'debugAddress', 'Address of the debug server (statechart visualizer, /debug/actors); empty turns it off.', { ours: true }),
  flag('embedded-runtime-allow-cluster', 'bool', 'embeddedRuntimeAllowCluster', 'Allow --container-runtime-endpoint=embedded together with --kubeconfig (the embedded runtime has no isolation).', { ours: true }),
];

/** The Go kubelet's KubeletFlags defaults (NewKubeletFlags) plus ours. */
export const DEFAULT_KUBELET_FLAGS: Readonly<KubeletFlags> = {
  kubeletConfigFile: '',
  kubeletDropinConfigDirectory: '',
  kubeconfig: '',
  bootstrapKubeconfig: '',
  hostnameOverride: '',
  nodeIP: '',
  certDirectory: '/var/lib/kubelet/pki',
  cloudProvider: '',
  cloudConfigFile: '',
  rootDirectory: '/var/lib/kubelet',
  nodeLabels: {},
  lockFilePath: '',
  exitOnLockContention: false,
  runtimeCgroups: '',
  podInfraContainerImage: '',
  imageCredentialProviderConfigPath: '',
  imageCredentialProviderBinDir: '',
  experimentalMounterPath: '',
  experimentalNodeAllocatableIgnoreEvictionThreshold: false,
  minimumGCAge: '0s',
  maxPerPodContainerCount: 1,
  maxContainerCount: -1,
  registerSchedulable: true,
  keepTerminatedPodVolumes: false,
  seccompDefault: false,
  housekeepingInterval: '10s',
  eventLog: '',
  devicePluginsDir: '/var/lib/kubelet/device-plugins',
  debugAddress: '127.0.0.1:10260',
  embeddedRuntimeAllowCluster: false,
};

const BY_NAME = new Map<string, FlagSpec>(FLAG_TABLE.map((spec) => [spec.name, spec]));
const BY_SHORT = new Map<string, FlagSpec>(FLAG_TABLE.filter((s) => s.short !== undefined).map((s) => [s.short as string, s]));

/** Looks a flag up by name, normalising underscores to dashes as the kubelet's flag set does. */
export function findFlag(name: string): FlagSpec | undefined {
  return BY_NAME.get(name.replace(/_/g, '-'));
}

export function findShortFlag(letter: string): FlagSpec | undefined {
  return BY_SHORT.get(letter);
}
