/**
 * The start-up phases of the Go kubelet, in its order (docs/ARCHITECTURE.md, Start-up; from its
 * call tree: NewKubeletCommand → run() → RunKubelet → createAndInitKubelet → startKubelet →
 * Kubelet.Run → syncLoop). The supervisor machine has one explicit state per entry; the journal,
 * `kubelet-ts report` and the visualizer name phases by these ids.
 */
export const PHASES = [
  { id: 'command.parse', go: 'NewKubeletCommand', work: 'parse flags, reject unknown flags and positional words' },
  { id: 'command.debugServer', go: 'NewKubeletCommand', work: 'start the debug server so a stuck start-up can be watched' },
  { id: 'command.featureGates', go: 'NewKubeletCommand', work: 'set feature gates from flags and config' },
  { id: 'command.validateFlags', go: 'NewKubeletCommand', work: 'ValidateKubeletFlags' },
  { id: 'command.loadConfigFile', go: 'NewKubeletCommand', work: 'read KubeletConfiguration, apply defaults, flags override the file' },
  { id: 'command.validateConfig', go: 'NewKubeletCommand', work: 'ValidateKubeletConfiguration: every invalid field reported' },
  { id: 'command.dependencies', go: 'NewKubeletCommand', work: 'UnsecuredDependencies: build the dependency set' },
  { id: 'run.lockFile', go: 'run()', work: '--lock-file / --exit-on-lock-contention' },
  { id: 'run.configz', go: 'run()', work: 'register the effective config for /configz' },
  // Go starts healthz at the end of run(); its checks (ping, log, syncloop) pass before the syncLoop
  // was first entered, so nothing after this point is waited for: kubelet-ts starts it here.
  { id: 'run.healthz', go: 'run()', work: 'healthz server (10248), started before the clients (Go: at the end of run())' },
  { id: 'run.standalone', go: 'run()', work: 'standalone when there is no --kubeconfig' },
  { id: 'run.nodeName', go: 'run()', work: 'hostname / --hostname-override → node name' },
  { id: 'run.bootstrap', go: 'run()', work: 'TLS bootstrap: with --bootstrap-kubeconfig and an unusable --kubeconfig, a client certificate through a CSR' },
  { id: 'run.clients', go: 'run()', work: 'kube, event and heartbeat clients, or none in standalone' },
  { id: 'run.auth', go: 'run()', work: 'authenticator and authorizer for the kubelet server' },
  { id: 'run.preInitRuntime', go: 'run()', work: 'connect the CRI runtime and image services, Version' },
  { id: 'run.cgroupDriverFromCRI', go: 'run()', work: "getCgroupDriverFromCRI: the runtime's cgroup driver (RuntimeConfig); refuse to start when it differs from cgroupDriver" },
  { id: 'run.cgroupRoots', go: 'run()', work: 'node-allocatable root, kubelet/runtime/system cgroups' },
  { id: 'run.machineInfo', go: 'run()', work: "cAdvisor's role: cores, memory, filesystem capacity" },
  { id: 'run.eventRecorder', go: 'run()', work: 'event broadcaster (to the API server, or log only)' },
  { id: 'run.containerManager', go: 'run()', work: 'reserved resources, hard eviction thresholds, node allocatable' },
  { id: 'run.oomScore', go: 'run()', work: "set this process's oom_score_adj" },
  { id: 'runKubelet.validateNodeIP', go: 'RunKubelet', work: '--node-ip: one IP or a dual-stack pair' },
  { id: 'runKubelet.newMainKubelet', go: 'createAndInitKubelet', work: 'pod config, pod workers, PLEG, managers' },
  { id: 'runKubelet.birthCry', go: 'createAndInitKubelet', work: '"Starting kubelet." event for the node' },
  { id: 'runKubelet.garbageCollection', go: 'createAndInitKubelet', work: 'start container and image GC loops' },
  { id: 'startKubelet.resourceManagers', go: 'Kubelet.Run', work: "the container manager's start of its resource managers (cpuManager/memoryManager/deviceManager.Start): CPU topology, reserved CPUs, the state files read" },
  { id: 'startKubelet.run', go: 'startKubelet', work: 'Kubelet.Run: modules, status loops, PLEG, syncLoop' },
  { id: 'startKubelet.servers', go: 'startKubelet', work: 'kubelet server (10250), read-only port, pod resources API' },
  { id: 'run.sdNotify', go: 'run()', work: 'READY=1 to systemd when NOTIFY_SOCKET is set' },
] as const;

export type PhaseId = (typeof PHASES)[number]['id'];

export const PHASE_IDS: readonly PhaseId[] = PHASES.map((p) => p.id);

export function isPhaseId(s: string): s is PhaseId {
  return (PHASE_IDS as readonly string[]).includes(s);
}
