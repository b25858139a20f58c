/**
 * The reasons the Go kubelet gives its events (pkg/kubelet/events/event.go), so callers of the
 * event recorder use Go's words. "RegisteredNode" is not here: in Go the node lifecycle controller
 * posts it, not the kubelet.
 */
export const EventReason = {
  // containers
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  PreemptContainer: 'Preempting',
  BackOffStartContainer: 'BackOff',
  ExceededGracePeriod: 'ExceededGracePeriod',
  // pods
  FailedToKillPod: 'FailedKillPod',
  FailedToCreatePodContainer: 'FailedCreatePodContainer',
  NetworkNotReady: 'NetworkNotReady',
  FailedSync: 'FailedSync',
  // images
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPullPolicy: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
  // the node and the kubelet
  NodeReady: 'NodeReady',
  NodeNotReady: 'NodeNotReady',
  NodeSchedulable: 'NodeSchedulable',
  NodeNotSchedulable: 'NodeNotSchedulable',
  StartingKubelet: 'Starting',
  KubeletSetupFailed: 'KubeletSetupFailed',
  FailedMountVolume: 'FailedMount',
  HostPortConflict: 'HostPortConflict',
  FailedValidation: 'FailedValidation',
  // sandboxes
  SandboxChanged: 'SandboxChanged',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
  FailedPrepareDynamicResources: 'FailedPrepareDynamicResources',
  FailedStatusPodSandBox: 'FailedPodSandBoxStatus',
  // probes and hooks
  ContainerUnhealthy: 'Unhealthy',
  ContainerProbeWarning: 'ProbeWarning',
  FailedPostStartHook: 'FailedPostStartHook',
  FailedPreStopHook: 'FailedPreStopHook',
} as const;

/** The birth cry's message (Go's BirthCry: "Starting kubelet."). */
export const STARTING_KUBELET_MESSAGE = 'Starting kubelet.';
