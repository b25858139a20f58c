/**
 * The feature gates of the Kubernetes version we claim (see version.ts), with their default and stage
 * at that version: k8s.io/kubernetes pkg/features/kube_features.go (defaultVersionedKubernetesFeatureGates,
 * including the apiserver, apiextensions, controller-manager and zpages gates it registers), the
 * client-go gates its init adds, and component-base's logging gates. The kubelet accepts any of them
 * in --feature-gates or `featureGates`; a name not in this table is an error, as in Go
 * (`unrecognized feature gate`). The names are the registered strings, not Go's constant names
 * (RuntimeClassInImageCriApi). Upstream's, not a vendor fork's: OpenShift's extra gates are unknown
 * here, and its NodeLogQuery default (on) is not taken.
 */
import type { FieldError } from './types.js';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** LockToDefault: setting the other value is an error. */
  locked: boolean;
}

// name stage default [locked]: one line per gate, resolved to the spec in effect at v1.35, as its newest
// patch release has it: patch releases turn gates off (SchedulerAsyncAPICalls, MaxUnavailableStatefulSet).
const TABLE = `
AllAlpha ALPHA false
AllBeta BETA false
AllowDNSOnlyNodeCSR DEPRECATED false
AllowInsecureKubeletCertificateSigningRequests DEPRECATED false
AllowOverwriteTerminationGracePeriodSeconds DEPRECATED false locked
AnyVolumeDataSource GA true locked
AuthorizeNodeWithSelectors GA true locked
AuthorizePodWebsocketUpgradeCreatePermission BETA true
CustomCPUCFSQuotaPeriod ALPHA false
CPUManagerPolicyAlphaOptions ALPHA false
CPUManagerPolicyBetaOptions BETA true
CPUManagerPolicyOptions GA true locked
CSIMigrationPortworx GA true locked
CSIServiceAccountTokenSecrets BETA true
CSIVolumeHealth ALPHA false
ChangeContainerStatusOnKubeletRestart DEPRECATED false
ClearingNominatedNodeNameAfterBinding BETA true
ClusterTrustBundle BETA false
ClusterTrustBundleProjection BETA false
ContainerCheckpoint BETA true
ContainerRestartRules BETA true
ContainerStopSignals ALPHA false
CrossNamespaceVolumeDataSource ALPHA false
DRAAdminAccess BETA true
DRAConsumableCapacity ALPHA false
DRADeviceBindingConditions ALPHA false
DRADeviceTaintRules ALPHA false
DRADeviceTaints ALPHA false
DRAExtendedResource ALPHA false
DRAPartitionableDevices ALPHA false
DRAPrioritizedList BETA true
DRAResourceClaimDeviceStatus BETA true
DRASchedulerFilterTimeout BETA true
DeploymentReplicaSetTerminatingReplicas BETA true
DisableAllocatorDualWrite GA true locked
DisableCPUQuotaWithExclusiveCPUs BETA true
DisableNodeKubeProxyVersion DEPRECATED true
DynamicResourceAllocation GA true locked
EnvFiles BETA true
EventedPLEG ALPHA false
ExecProbeTimeout GA true locked
ExternalServiceAccountTokenSigner BETA true
GangScheduling ALPHA false
GenericWorkload ALPHA false
GitRepoVolumeDriver DEPRECATED false
GracefulNodeShutdown BETA true
GracefulNodeShutdownBasedOnPodPriority BETA true
HPAConfigurableTolerance BETA true
HPAScaleToZero ALPHA false
HonorPVReclaimPolicy GA true locked
HostnameOverride BETA true
ImageMaximumGCAge GA true locked
ImageVolume BETA true
InPlacePodLevelResourcesVerticalScaling ALPHA false
InPlacePodVerticalScaling GA true locked
InPlacePodVerticalScalingAllocatedStatus DEPRECATED false
InPlacePodVerticalScalingExclusiveCPUs ALPHA false
InPlacePodVerticalScalingExclusiveMemory ALPHA false
InTreePluginPortworxUnregister ALPHA false
JobBackoffLimitPerIndex GA true locked
JobManagedBy GA true locked
JobPodReplacementPolicy GA true locked
JobSuccessPolicy GA true locked
KubeletCgroupDriverFromCRI GA true locked
KubeletCrashLoopBackOffMax BETA true
KubeletEnsureSecretPulledImages BETA true
KubeletFineGrainedAuthz BETA true
KubeletInUserNamespace ALPHA false
KubeletPSI BETA true
KubeletPodResourcesDynamicResources BETA true
KubeletPodResourcesGet BETA true
KubeletPodResourcesListUseActivePods DEPRECATED true
KubeletRegistrationGetOnExistsOnly DEPRECATED false
KubeletSeparateDiskGC BETA true
KubeletServiceAccountTokenForCredentialProviders BETA true
KubeletTracing GA true locked
LocalStorageCapacityIsolationFSQuotaMonitoring BETA false
LogarithmicScaleDown GA true locked
MatchLabelKeysInPodAffinity GA true locked
MatchLabelKeysInPodTopologySpread BETA true
MatchLabelKeysInPodTopologySpreadSelectorMerge BETA true
MaxUnavailableStatefulSet BETA false
MemoryManager GA true locked
MemoryQoS ALPHA false
MultiCIDRServiceAllocator GA true locked
MutableCSINodeAllocatableCount BETA true
MutablePVNodeAffinity ALPHA false
MutablePodResourcesForSuspendedJobs ALPHA false
MutableSchedulingDirectivesForSuspendedJobs ALPHA false
NFTablesProxyMode GA true locked
NodeDeclaredFeatures ALPHA false
NodeInclusionPolicyInPodTopologySpread GA true locked
NodeLogQuery BETA false
NodeSwap GA true locked
NominatedNodeNameForExpectation BETA true
OpportunisticBatching BETA true
OrderedNamespaceDeletion GA true locked
PodAndContainerStatsFromCRI ALPHA false
PodCertificateRequest BETA false
PodDeletionCost BETA true
PodLevelResources BETA true
PodLifecycleSleepAction GA true locked
PodLifecycleSleepActionAllowZero GA true locked
PodLogsQuerySplitStreams ALPHA false
PodObservedGenerationTracking GA true locked
PodReadyToStartContainersCondition BETA true
PodSchedulingReadiness GA true locked
PodTopologyLabelsAdmission BETA true
PortForwardWebsockets BETA true
PreferSameTrafficDistribution GA true locked
PreventStaticPodAPIReferences BETA true
ProcMountType BETA true
QOSReserved ALPHA false
RecoverVolumeExpansionFailure GA true locked
RecursiveReadOnlyMounts GA true locked
ReduceDefaultCrashLoopBackOffDecay ALPHA false
RelaxedDNSSearchValidation GA true locked
RelaxedEnvironmentVariableValidation GA true locked
RelaxedServiceNameValidation ALPHA false
ReloadKubeletServerCertificateFile BETA true
ResourceHealthStatus ALPHA false
RestartAllContainersOnContainerExits ALPHA false
RotateKubeletServerCertificate BETA true
RuntimeClassInImageCriApi ALPHA false
SELinuxChangePolicy BETA true
SELinuxMount BETA false
SELinuxMountReadWriteOncePod BETA true
SchedulerAsyncAPICalls BETA false
SchedulerAsyncPreemption BETA true
SchedulerPopFromBackoffQ BETA true
SchedulerQueueingHints GA true locked
SeparateTaintEvictionController GA true locked
ServiceAccountNodeAudienceRestriction BETA true
ServiceAccountTokenJTI GA true locked
ServiceAccountTokenNodeBinding GA true locked
ServiceAccountTokenNodeBindingValidation GA true locked
ServiceAccountTokenPodNodeInfo GA true locked
ServiceTrafficDistribution GA true locked
SidecarContainers GA true locked
StatefulSetSemanticRevisionComparison BETA true
StorageCapacityScoring ALPHA false
StorageNamespaceIndex DEPRECATED true
StorageVersionMigrator BETA false
StreamingCollectionEncodingToJSON GA true locked
StreamingCollectionEncodingToProtobuf GA true locked
StrictIPCIDRValidation ALPHA false
SupplementalGroupsPolicy GA true locked
SystemdWatchdog GA true locked
TaintTolerationComparisonOperators ALPHA false
TopologyAwareHints GA true locked
TopologyManagerPolicyAlphaOptions ALPHA false
TopologyManagerPolicyBetaOptions BETA true
TopologyManagerPolicyOptions GA true
TranslateStreamCloseWebsocketRequests BETA true
UserNamespacesHostNetworkSupport ALPHA false
UserNamespacesSupport BETA true
VolumeAttributesClass GA true
VolumeLimitScaling ALPHA false
WinDSR GA true locked
WinOverlay GA true locked
WindowsCPUAndMemoryAffinity ALPHA false
WindowsGracefulNodeShutdown BETA true
WindowsHostNetwork DEPRECATED false
CRDObservedGenerationTracking BETA false
CRDValidationRatcheting GA true locked
CustomResourceFieldSelectors GA true locked
APIResponseCompression BETA true
APIServerIdentity BETA true
APIServerTracing GA true locked
APIServingWithRoutine ALPHA false
AggregatedDiscoveryRemoveBetaType DEPRECATED true locked
AllowParsingUserUIDFromCertAuth BETA true
AllowUnsafeMalformedObjectDeletion ALPHA false
AnonymousAuthConfigurableEndpoints GA true locked
AuthorizeWithSelectors GA true locked
BtreeWatchCache GA true locked
CBORServingAndStorage ALPHA false
ConcurrentWatchObjectDecode BETA false
ConsistentListFromCache GA true locked
ConstrainedImpersonation ALPHA false
CoordinatedLeaderElection BETA false
DeclarativeValidation BETA true
DeclarativeValidationTakeover BETA false
DetectCacheInconsistency BETA true
KMSv1 DEPRECATED false
ListFromCacheSnapshot BETA true
MutatingAdmissionPolicy BETA false
OpenAPIEnums BETA true
RemoteRequestHeaderUID BETA true
ResilientWatchCacheInitialization GA true locked
RetryGenerateName GA true locked
SeparateCacheWatchRPC DEPRECATED false
SizeBasedListCostEstimate BETA true
StorageVersionAPI ALPHA false
StorageVersionHash BETA true
StructuredAuthenticationConfiguration GA true locked
StructuredAuthenticationConfigurationEgressSelector BETA true
StructuredAuthenticationConfigurationJWKSMetrics BETA true
StructuredAuthorizationConfiguration GA true locked
TokenRequestServiceAccountUIDValidation BETA true
UnauthenticatedHTTP2DOSMitigation BETA true
UnknownVersionInteroperabilityProxy ALPHA false
WatchCacheInitializationPostStartHook BETA false
WatchFromStorageWithoutResourceVersion DEPRECATED false locked
WatchList BETA true
CloudControllerManagerWatchBasedRoutesReconciliation ALPHA false
CloudControllerManagerWebhook ALPHA false
ComponentFlagz ALPHA false
ComponentStatusz ALPHA false
ContextualLogging BETA true
LoggingAlphaOptions ALPHA false
LoggingBetaOptions BETA true
ClientsAllowCBOR ALPHA false
ClientsPreferCBOR ALPHA false
InOrderInformers BETA true
InOrderInformersBatchProcess BETA true
InformerResourceVersion GA true
WatchListClient BETA true
`;

export const KNOWN_FEATURE_GATES: ReadonlyMap<string, FeatureSpec> = new Map(
  TABLE.trim()
    .split('\n')
    .map((line): [string, FeatureSpec] => {
      const [name = '', stage = '', dflt = '', lock] = line.split(' ');
      return [name, { stage: stage as FeatureStage, default: dflt === 'true', locked: lock === 'locked' }];
    }),
);

/** The effective gates: every known gate with its value. */
export type FeatureGates = Readonly<Record<string, boolean>>;

/** Gate lookup that treats an unknown name as disabled (validation reports unknown names separately). */
export function isEnabled(gates: FeatureGates, name: string): boolean {
  return gates[name] === true;
}

/**
 * Resolves the effective gates from explicit settings, applied in order (later wins per gate),
 * as Go's SetFromMap does: unknown names and locked gates set away from their default are errors,
 * each naming the gate; AllAlpha/AllBeta switch on every alpha/beta gate not set explicitly.
 */
export function resolveFeatureGates(
  ...sources: { field: string; gates: Readonly<Record<string, boolean>> }[]
): { gates: FeatureGates; errors: FieldError[] } {
  const explicit = new Map<string, boolean>();
  const errors: FieldError[] = [];
  for (const source of sources) {
    for (const [name, value] of Object.entries(source.gates)) {
      const spec = KNOWN_FEATURE_GATES.get(name);
      if (spec === undefined) {
        errors.push({ field: `${source.field}.${name}`, value, message: `unrecognized feature gate: ${name}` });
        continue;
      }
      if (spec.locked && value !== spec.default) {
        errors.push({
          field: `${source.field}.${name}`,
          value,
          message: `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`,
        });
        continue;
      }
      explicit.set(name, value);
    }
  }
  const allAlpha = explicit.get('AllAlpha') === true;
  const allBeta = explicit.get('AllBeta') === true;
  const gates: Record<string, boolean> = {};
  for (const [name, spec] of KNOWN_FEATURE_GATES) {
    const set = explicit.get(name);
    if (set !== undefined) gates[name] = set;
    else if ((allAlpha && spec.stage === 'ALPHA') || (allBeta && spec.stage === 'BETA')) gates[name] = true;
    else gates[name] = spec.default;
  }
  return { gates, errors };
}

/** The known gates as `Name=true|false (STAGE - default=x)` lines, for --help. */
export function describeFeatureGates(): string[] {
  return [...KNOWN_FEATURE_GATES.entries()]
    .filter(([, spec]) => spec.stage !== 'GA' || !spec.locked)
    .map(([name, spec]) => `${name}=true|false (${spec.stage} - default=${spec.default})`)
    .sort();
}
