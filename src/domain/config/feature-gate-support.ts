/**
 * Which feature gates name a feature kubelet-ts has. Go's kubelet accepts every gate of its
 * version, including the API server's, scheduler's and controllers' (they change nothing in a
 * kubelet); kubelet-ts accepts the same names, and sorts each into one of three lists:
 * - `HAS`: a kubelet feature kubelet-ts has (or a gate that only changes validation or defaults);
 * - `LACKS`: a kubelet feature kubelet-ts does not have: reported off whatever its default, and
 *   refused when set on explicitly (on would claim what is not there), unless on is the only value
 *   the gate is locked to;
 * - `ELSEWHERE`: another component's gate, Windows-only, or one of client-go's informer internals:
 *   accepted, as Go's kubelet does.
 * A gate added to feature-gates.ts without a place here fails the test beside this table.
 */
import { KNOWN_FEATURE_GATES } from './feature-gates.js';
import type { FieldError } from './types.js';

const names = (block: string): ReadonlySet<string> => new Set(block.split(/\s+/).filter((n) => n !== ''));

export const HAS = names(`
  AllAlpha AllBeta
  GracefulNodeShutdown GracefulNodeShutdownBasedOnPodPriority
  CustomCPUCFSQuotaPeriod DisableNodeKubeProxyVersion ExecProbeTimeout ImageMaximumGCAge
  KubeletCrashLoopBackOffMax KubeletFineGrainedAuthz KubeletPodResourcesGet KubeletPodResourcesListUseActivePods
  LoggingAlphaOptions LoggingBetaOptions PodLevelResources
  PodLifecycleSleepAction PodLifecycleSleepActionAllowZero PodReadyToStartContainersCondition
  HostnameOverride InPlacePodVerticalScaling PodObservedGenerationTracking PortForwardWebsockets PreventStaticPodAPIReferences RotateKubeletServerCertificate SidecarContainers
  UserNamespacesSupport CPUManagerPolicyBetaOptions CPUManagerPolicyOptions EnvFiles
  KubeletCgroupDriverFromCRI MemoryManager ProcMountType SystemdWatchdog ContainerRestartRules DynamicResourceAllocation
  KubeletPodResourcesDynamicResources
  TopologyManagerPolicyAlphaOptions TopologyManagerPolicyOptions
`);

export const LACKS = names(`
  AllowOverwriteTerminationGracePeriodSeconds CPUManagerPolicyAlphaOptions CSIMigrationPortworx
  CSIServiceAccountTokenSecrets CSIVolumeHealth ChangeContainerStatusOnKubeletRestart ClientsAllowCBOR
  ClientsPreferCBOR ClusterTrustBundleProjection ComponentFlagz ComponentStatusz ContainerCheckpoint
  ContainerStopSignals DisableCPUQuotaWithExclusiveCPUs
  EventedPLEG GitRepoVolumeDriver ImageVolume
  InPlacePodLevelResourcesVerticalScaling InPlacePodVerticalScalingAllocatedStatus
  InPlacePodVerticalScalingExclusiveCPUs InPlacePodVerticalScalingExclusiveMemory
  InTreePluginPortworxUnregister KubeletEnsureSecretPulledImages
  KubeletInUserNamespace KubeletPSI KubeletRegistrationGetOnExistsOnly
  KubeletSeparateDiskGC KubeletServiceAccountTokenForCredentialProviders KubeletTracing
  LocalStorageCapacityIsolationFSQuotaMonitoring MemoryQoS MutableCSINodeAllocatableCount
  NodeDeclaredFeatures NodeLogQuery NodeSwap PodAndContainerStatsFromCRI PodCertificateRequest
  PodLogsQuerySplitStreams QOSReserved RecoverVolumeExpansionFailure
  RecursiveReadOnlyMounts ReduceDefaultCrashLoopBackOffDecay ReloadKubeletServerCertificateFile
  ResourceHealthStatus RestartAllContainersOnContainerExits RuntimeClassInImageCriApi SELinuxChangePolicy
  SELinuxMount SELinuxMountReadWriteOncePod SupplementalGroupsPolicy TopologyManagerPolicyBetaOptions
  UserNamespacesHostNetworkSupport WatchListClient
`);

export const ELSEWHERE = names(`
  APIResponseCompression APIServerIdentity APIServerTracing APIServingWithRoutine
  AggregatedDiscoveryRemoveBetaType AllowDNSOnlyNodeCSR AllowInsecureKubeletCertificateSigningRequests
  AllowParsingUserUIDFromCertAuth AllowUnsafeMalformedObjectDeletion AnonymousAuthConfigurableEndpoints
  AnyVolumeDataSource AuthorizeNodeWithSelectors AuthorizePodWebsocketUpgradeCreatePermission
  AuthorizeWithSelectors BtreeWatchCache CBORServingAndStorage CRDObservedGenerationTracking
  CRDValidationRatcheting ClearingNominatedNodeNameAfterBinding CloudControllerManagerWatchBasedRoutesReconciliation
  CloudControllerManagerWebhook ClusterTrustBundle ConcurrentWatchObjectDecode ConsistentListFromCache
  ConstrainedImpersonation ContextualLogging CoordinatedLeaderElection CrossNamespaceVolumeDataSource
  CustomResourceFieldSelectors DRAAdminAccess DRAConsumableCapacity DRADeviceBindingConditions
  DRADeviceTaintRules DRADeviceTaints DRAExtendedResource DRAPartitionableDevices DRAPrioritizedList
  DRAResourceClaimDeviceStatus DRASchedulerFilterTimeout DeclarativeValidation DeclarativeValidationTakeover
  DeploymentReplicaSetTerminatingReplicas DetectCacheInconsistency DisableAllocatorDualWrite
  ExternalServiceAccountTokenSigner GangScheduling GenericWorkload HPAConfigurableTolerance HPAScaleToZero
  HonorPVReclaimPolicy InOrderInformers InOrderInformersBatchProcess InformerResourceVersion
  JobBackoffLimitPerIndex JobManagedBy JobPodReplacementPolicy JobSuccessPolicy KMSv1
  ListFromCacheSnapshot LogarithmicScaleDown MatchLabelKeysInPodAffinity MatchLabelKeysInPodTopologySpread
  MatchLabelKeysInPodTopologySpreadSelectorMerge MaxUnavailableStatefulSet MultiCIDRServiceAllocator
  MutatingAdmissionPolicy MutablePVNodeAffinity MutablePodResourcesForSuspendedJobs
  MutableSchedulingDirectivesForSuspendedJobs NFTablesProxyMode NodeInclusionPolicyInPodTopologySpread
  NominatedNodeNameForExpectation OpenAPIEnums OpportunisticBatching OrderedNamespaceDeletion PodDeletionCost
  PodSchedulingReadiness PodTopologyLabelsAdmission PreferSameTrafficDistribution RelaxedDNSSearchValidation
  RelaxedEnvironmentVariableValidation RelaxedServiceNameValidation RemoteRequestHeaderUID
  ResilientWatchCacheInitialization RetryGenerateName SchedulerAsyncAPICalls SchedulerAsyncPreemption
  SchedulerPopFromBackoffQ SchedulerQueueingHints SeparateCacheWatchRPC SeparateTaintEvictionController
  ServiceAccountNodeAudienceRestriction ServiceAccountTokenJTI ServiceAccountTokenNodeBinding
  ServiceAccountTokenNodeBindingValidation ServiceAccountTokenPodNodeInfo ServiceTrafficDistribution
  SizeBasedListCostEstimate StatefulSetSemanticRevisionComparison StorageCapacityScoring StorageNamespaceIndex
  StorageVersionAPI StorageVersionHash StorageVersionMigrator StreamingCollectionEncodingToJSON
  StreamingCollectionEncodingToProtobuf StrictIPCIDRValidation StructuredAuthenticationConfiguration
  StructuredAuthenticationConfigurationEgressSelector StructuredAuthenticationConfigurationJWKSMetrics
  StructuredAuthorizationConfiguration TaintTolerationComparisonOperators TokenRequestServiceAccountUIDValidation
  TopologyAwareHints TranslateStreamCloseWebsocketRequests UnauthenticatedHTTP2DOSMitigation
  UnknownVersionInteroperabilityProxy VolumeAttributesClass VolumeLimitScaling WatchCacheInitializationPostStartHook
  WatchFromStorageWithoutResourceVersion WatchList WinDSR WinOverlay WindowsCPUAndMemoryAffinity
  WindowsGracefulNodeShutdown WindowsHostNetwork
`);

/** The gates as kubelet-ts reports them: a gate of a feature it lacks is off, whatever Go's default. */
export function reportedFeatureGates(resolved: Readonly<Record<string, boolean>>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(resolved).map(([name, on]) => [name, on && !LACKS.has(name)]));
}

/**
 * A lacking feature's gate switched on by the user. A gate whose default is on is only refused when
 * set explicitly: the default is reported off instead. A locked gate is never refused here: its
 * locked value is the only one a Go kubelet accepts too (a config written for Go may well spell it
 * out), and its other value is already refused as locked.
 */
export function lackingGatesSetOn(explicit: { field: string; gates: Readonly<Record<string, boolean>> }[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const source of explicit) {
    for (const [name, on] of Object.entries(source.gates)) {
      if (on && LACKS.has(name) && KNOWN_FEATURE_GATES.get(name)?.locked !== true) {
        errors.push({ field: `${source.field}.${name}`, value: on, message: `kubelet-ts does not have the feature behind gate ${name}; leave it unset or false` });
      }
    }
  }
  return errors;
}
