/**
 * createAndInitKubelet, startKubelet and run()'s tail: build the kubelet's parts over the connected
 * runtime (newMainKubelet), announce it (birthCry), start container GC, run Kubelet.Run's module
 * initialisation and hand the subsystems' inputs to the supervisor (startKubelet.run), start the
 * servers, healthz, and tell systemd.
 */
import { crashLoopBackoffPolicy } from '../../domain/runtime/backoff.js';
import { deadContainersKept } from '../../domain/runtime/dead-containers.js';
import { seccompProfileRoot } from '../../domain/runtime/seccomp.js';
import { ENV_FILES_GATE } from '../../domain/runtime/env-file.js';
import { USER_NAMESPACES_GATE } from '../../domain/runtime/user-namespaces.js';
import { KubeletError } from '../../domain/errors.js';
import { parseGoDuration } from '../../domain/config/duration.js';
import type { KubeletRunOutput, PhaseInput, PhaseOutputs } from '../../machines/supervisor.machine.js';
import { KUBELET_TS_VERSION } from '../../domain/config/version.js';
import { nodeRegistrationSpec, nodeSideSettings } from '../../domain/node-status/node-side-settings.js';
import { admissionNode } from '../../domain/pod/admission-node.js';
import { nodeStaticFacts } from '../../domain/node-status/static-facts.js';
import { nodeHostIps } from '../../domain/node/node-ip.js';
import { updateRuntimeConfig } from '../runtime/update-runtime-config.js';
import type { CriRuntimeService } from '../../ports/cri.js';
import type { Logger } from '../../log.js';
import { CONTAINER_GC_PERIOD_MS, IMAGE_GC_PERIOD_MS } from '../gc/gc-loops.js';
import { logRotatePolicy } from '../logs/container-log-manager.js';
import type { PhaseDeps } from './deps.js';
import { evictionManagerInput } from './eviction-input.js';
import { SERVER_START_HOLD_MS } from './first-registration.js';
import { nodeShutdownInput } from './node-shutdown-input.js';
import { migratedPlugins } from '../../domain/csi/csi-node.js';
import { outputOf, phaseActor, type PhaseGroup } from './phase-actor.js';
import { settings } from './settings.js';
import { watchdogSetting } from '../../domain/node/systemd-watchdog.js';
import { kubeletDataDirectories } from '../../domain/node/data-directories.js';
import { startSystemdWatchdog } from '../node/systemd-watchdog.js';
import { openActuatedState } from '../runtime-manager/actuated-state.js';

const PLEG_RELIST_PERIOD_MS = 1000;

/** The syncLoop's resource managers' input, left out when none acts and nothing was kept (the journal stays as it was). */
function resourceManagersInput(started: PhaseOutputs['startKubelet.resourceManagers']): { resourceManagers?: PhaseOutputs['startKubelet.resourceManagers'] } {
  const { inventory, assignments } = started;
  const acting = inventory.cpu !== null || inventory.memory !== null || inventory.topology.policy !== 'none' || Object.keys(assignments).length > 0;
  return acting ? { resourceManagers: started } : {};
}

/** The credential provider plugins when either flag is given (Go's NewKubeGenericRuntimeManager registers them then). */
async function credentialProviders(deps: PhaseDeps) {
  const { imageCredentialProviderConfigPath: configPath, imageCredentialProviderBinDir: binDir } = settings.flags(deps.live);
  if (configPath === '' && binDir === '') return undefined;
  if (!deps.build.imageCredentialProviders) throw new KubeletError('KLT_ERR_CONFIG_INVALID', 'credential provider plugins are not available in this build');
  return deps.build.imageCredentialProviders(configPath, binDir);
}

export function kubeletPhases(deps: PhaseDeps) {
  const { live } = deps;

  /**
   * Cluster mode's subsystems, from what the earlier phases found out: node registration and
   * status, the lease, the status manager. The jitters are drawn here (an effect), so the journal
   * records them and a replay uses the same numbers.
   */
  const clusterSubsystems = (input: PhaseInput, nodeName: string, nodeIps: string[]): KubeletRunOutput => {
    const c = settings.config(live);
    const s = nodeSideSettings(c, settings.flags(live));
    const machineInfo = outputOf(input, 'run.machineInfo');
    const resources = outputOf(input, 'run.containerManager');
    const version = outputOf(input, 'run.preInitRuntime');
    const facts = nodeStaticFacts({
      hostname: nodeName,
      nodeIps,
      machineInfo,
      capacity: resources.capacity,
      allocatable: resources.allocatable,
      runtimeName: version.runtime_name ?? 'unknown',
      runtimeVersion: version.runtime_version ?? 'unknown',
      kubeletVersion: KUBELET_TS_VERSION,
      kubeletPort: s.kubeletPort,
      maxImages: s.maxImages,
    });
    const registration = nodeRegistrationSpec(s, nodeName, machineInfo);
    return {
      statusManager: { nodeName },
      nodeStatus: {
        registration, facts, jitter: deps.random.next(), startedAtMs: deps.clock.now(), updateFrequencyMs: s.updateFrequencyMs, reportFrequencyMs: s.reportFrequencyMs, registerNode: s.registerNode,
        runtimePodCIDR: input.outputs['runKubelet.newMainKubelet']?.podCIDR ?? '',
      },
      nodeLease: { nodeName, leaseDurationSeconds: s.leaseDurationSeconds, jitter: deps.random.next() },
    };
  };
  return {
    'runKubelet.newMainKubelet': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      const info = input.outputs['run.machineInfo'];
      const ips = input.outputs['runKubelet.validateNodeIP'];
      const cri = live.cri.peek();
      if (!cri) throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'no CRI client: run.preInitRuntime did not connect');
      const rootDir = settings.rootDir(live);
      const api = live.api.peek();
      const allocated = input.outputs['run.containerManager']?.allocatable;
      // resourceFieldRef's fallback for containers without limits, in the API's quantities: for
      // Downward API volumes and for env vars alike (Go's MergeContainerResourceLimits).
      const allocatable = allocated && { cpu: `${allocated.cpuMillis}m`, memory: String(allocated.memoryBytes), 'ephemeral-storage': String(allocated.ephemeralStorageBytes) };
      const volumes = deps.build.volumeHost({
        rootDir,
        nodeName: input.outputs['run.nodeName']?.nodeName ?? '',
        ...(api ? { api: api.main } : {}),
        strategy: c.configMapAndSecretChangeDetectionStrategy,
        ...(allocatable ? { nodeAllocatable: allocatable } : {}),
      });
      deps.lifetimes.add('volumeSources', async () => volumes.close());
      live.volumeSources.set(volumes.sources);
      live.volumePlugins.set(volumes.plugins);
      live.csiVolumes.set(volumes.csi);
      // Go starts the Service informer here too; standalone there is none, and no Service variables.
      const services = api ? deps.build.serviceEnvironment(api.main) : undefined;
      if (services) deps.lifetimes.add('serviceInformer', async () => services.stop());
      const imageCredentials = await credentialProviders(deps);
      const runtimeClasses = api ? deps.build.runtimeClassInformer(api.main) : undefined;
      if (runtimeClasses) deps.lifetimes.add('runtimeClassInformer', async () => runtimeClasses.stop());
      // Go's NewKubeGenericRuntimeManager restores the actuated resources here; a bad file stops the start.
      const actuated = await openActuatedState(deps.resourceManagers.files, rootDir);
      // Go's DRA manager reads claims from the API server: standalone there is none, and admission refuses claims.
      const dra = api ? await deps.build.draClaimManager({ api: api.main, nodeName: input.outputs['run.nodeName']?.nodeName ?? '', rootDir, files: deps.resourceManagers.files }) : undefined;
      if (dra) {
        deps.lifetimes.add('draClaimManager', async () => dra.close());
        live.draClaims.set(dra.manager);
      }
      live.runtimeManager.set(deps.build.runtimeManager({
        events: () => live.events.peek(),
        actuated,
        cri,
        podLogsDir: c.podLogsDir,
        node: {
          hostIPs: nodeHostIps(ips?.nodeIps ?? [], deps.hostAddresses.addresses()),
          ...(info ? { memoryCapacityBytes: info.memoryCapacityBytes } : {}),
          clusterDNS: c.clusterDNS,
          clusterDomain: c.clusterDomain,
          resolvConf: c.resolvConf,
          cpuCfsQuota: c.cpuCFSQuota,
          cpuCfsQuotaPeriodMicros: parseGoDuration(c.cpuCFSQuotaPeriod) * 1000,
          ...(allocatable ? { nodeAllocatable: allocatable } : {}),
          cgroupParentFor: (pod) => live.containerManager.require().cgroupParentFor(pod),
          ensurePodCgroup: (pod) => live.containerManager.require().ensurePod(pod),
          podCgroup: {
            read: (pod) => live.containerManager.require().readPod(pod),
            desired: (pod) => live.containerManager.require().desiredPod(pod),
            write: (pod, config) => live.containerManager.require().updatePod(pod, config),
          },
          seccomp: { runtimeDefault: c.seccompDefault || settings.flags(live).seccompDefault, profileRoot: seccompProfileRoot(rootDir) },
          ...(services ? { serviceEnvFor: (pod) => services.envFor(pod) } : {}),
          ...(runtimeClasses ? { runtimeClasses } : {}),
          // Read at each container start: the pool shrinks and grows as exclusive CPUs are given and freed.
          sharedCpus: () => live.resourceManagers.peek()?.live.sharedCpus(),
          deviceRuntime: (podUid, containerName, devices) => deps.devices.containerDevices(podUid, containerName, devices),
          userNamespaces: live.gates.peek()?.[USER_NAMESPACES_GATE] ?? true,
          envFiles: live.gates.peek()?.[ENV_FILES_GATE] ?? true,
          ...(dra ? { dra: dra.manager } : {}),
        },
        // Standalone, env references to ConfigMaps and Secrets fail with Go's "no kubeClient defined".
        pod: { rootDir, files: volumes.files, volumes: volumes.plugins, ...(api ? { sources: volumes.sources } : {}) },
        ...(imageCredentials ? { imageCredentials } : {}),
        containerBackOff: crashLoopBackoffPolicy(c.crashLoopBackOff.maxContainerRestartPeriod === null ? undefined : parseGoDuration(c.crashLoopBackOff.maxContainerRestartPeriod)),
      }));
      const podCIDR = await givePodCIDR(cri.runtime, c.podCIDR, deps.logger);
      return {
        podLogsDir: c.podLogsDir,
        parts: ['runtimeManager', 'secretManager', 'configMapManager', 'tokenManager', 'volumePluginManager', 'podConfig', 'pleg', 'podWorkers', 'probeManager', 'statusCache'],
        ...(podCIDR ? { podCIDR } : {}),
      };
    }),
    'runKubelet.birthCry': phaseActor(async ({ input }) => {
      const node = input.outputs['run.nodeName']?.nodeName ?? '';
      // Go refers to the Node by name, its name standing in for the uid (nodeRef).
      live.events.peek()?.recordEvent({ object: { kind: 'Node', name: node, uid: node, namespace: '' }, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
      deps.logger.info({ object: `Node/${node}`, type: 'Normal', reason: 'Starting' }, 'Starting kubelet.');
      return { reason: 'Starting', message: 'Starting kubelet.', sink: live.api.peek() ? 'apiserver' : 'log' };
    }),
    'runKubelet.garbageCollection': phaseActor(async () => {
      const c = settings.config(live);
      const flags = settings.flags(live);
      const containers = {
        minAgeMs: parseGoDuration(flags.minimumGCAge),
        maxPerPodContainer: flags.maxPerPodContainerCount,
        maxContainers: flags.maxContainerCount,
      };
      const images = {
        highThresholdPercent: c.imageGCHighThresholdPercent,
        lowThresholdPercent: c.imageGCLowThresholdPercent,
        minAgeMs: parseGoDuration(c.imageMinimumGCAge),
        maxAgeMs: parseGoDuration(c.imageMaximumGCAge),
      };
      const cri = live.cri.require();
      const { stop, collectors } = deps.build.garbageCollection({ cri, podLogsDir: c.podLogsDir, containers, images });
      deps.lifetimes.add('garbageCollection', stop);
      live.garbageCollectors.set(collectors);
      return { containerGC: { periodMs: CONTAINER_GC_PERIOD_MS, ...containers }, imageGC: { periodMs: IMAGE_GC_PERIOD_MS, ...images } };
    }),
    'startKubelet.run': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      // NewMainKubelet refuses a malformed or too small watchdog timeout before anything starts.
      const watchdog = watchdogSetting(deps.env, deps.systemdWatchdog.pid);
      if (watchdog instanceof Error) throw new KubeletError('KLT_ERR_CONFIG_INVALID', watchdog.message);
      const root = settings.rootDir(live);
      // initializeModules: the data directories, the pod logs directory and the legacy links' one.
      await deps.makeDirectories(kubeletDataDirectories({ rootDir: root, podLogsDir: c.podLogsDir, legacyLogLinksDir: deps.containerLogs.linkDir }));
      // Go starts it once the runtime answers (initializeRuntimeDependentModules); its first pass
      // here comes a monitor interval later, and a pass the runtime fails is tried again at the next.
      deps.lifetimes.add('containerLogManager', deps.build.containerLogManager({ cri: live.cri.require(), policy: logRotatePolicy(c) }));
      // initializeModules starts the resource analyzer: the volume stats, measured in the background.
      if (deps.volumeStats) deps.lifetimes.add('volumeStats', deps.volumeStats.start(parseGoDuration(c.volumeStatsAggPeriod)));
      const { nodeName } = outputOf(input, 'run.nodeName');
      const hostIps = nodeHostIps(input.outputs['runKubelet.validateNodeIP']?.nodeIps ?? [], deps.hostAddresses.addresses());
      const hostIP = hostIps[0]!;
      // Admission's node until the API server's is seen: the Node this kubelet registers (labels, taints) with its allocatable.
      const registration = nodeRegistrationSpec(nodeSideSettings(c, settings.flags(live)), nodeName, outputOf(input, 'run.machineInfo'));
      const { allocatable } = outputOf(input, 'run.containerManager');
      const out: KubeletRunOutput = {
        // volumeManager.Run: started before the runtime checks and the syncLoop, as in Kubelet.Run.
        volumeManager: {},
        // Started by the runtime's first ready answer (initializeRuntimeDependentModules).
        containerManager: { qosCgroups: outputOf(input, 'run.cgroupRoots').qos !== null },
        runtime: { startedAtMs: deps.clock.now() },
        syncLoop: {
          nodeName,
          node: admissionNode(registration, allocatable, { dynamicResources: live.api.peek() !== undefined }),
          ...(c.allowedUnsafeSysctls.length > 0 ? { allowedUnsafeSysctls: c.allowedUnsafeSysctls } : {}),
          ...resourceManagersInput(outputOf(input, 'startKubelet.resourceManagers')),
          hostIP,
          podConfig: {
            staticPodPath: c.staticPodPath,
            fileCheckFrequencyMs: parseGoDuration(c.fileCheckFrequency),
            staticPodURL: c.staticPodURL,
            staticPodURLHeader: c.staticPodURLHeader,
            httpCheckFrequencyMs: parseGoDuration(c.httpCheckFrequency),
          },
          podWorker: {
            resyncIntervalMs: parseGoDuration(c.syncFrequency),
            runtimeName: input.outputs['run.preInitRuntime']?.runtime_name ?? 'containerd',
            waitForVolumes: true,
          },
          pleg: { relistPeriodMs: PLEG_RELIST_PERIOD_MS },
          deadContainersKept: deadContainersKept(settings.flags(live).maxPerPodContainerCount),
        },
      };
      const eviction = evictionManagerInput(c, nodeName);
      if (eviction) out.evictionManager = eviction;
      const shutdown = nodeShutdownInput(c, live.gates.peek() ?? {}, nodeName, deps.logger);
      if (shutdown) out.nodeShutdown = shutdown;
      // Go's plugin manager, started on the runtime's first ready; the CSINode in cluster mode only.
      out.pluginManager = {
        pluginsDir: `${root}/plugins_registry`,
        csiNode: live.api.peek() ? { nodeName, migratedPlugins: migratedPlugins(live.gates.peek() ?? {}) } : null,
      };
      out.deviceManager = await deviceManagerInput(settings.flags(live).devicePluginsDir, deps);
      if (live.api.peek()) Object.assign(out, clusterSubsystems(input, nodeName, hostIps));
      if (live.api.peek() && out.syncLoop) {
        out.syncLoop.podConfig.apiSource = true;
        // Admission follows the Node in the API server (the node status machine's informer).
        out.syncLoop.liveNode = true;
      }
      if (live.api.peek() && settings.config(live).rotateCertificates) {
        // Go's manager renews the certificate it loaded from the store; here, the store's current pair when --kubeconfig uses it.
        const current = await deps.currentClientCertificate(settings.kubeconfig(live), settings.flags(live).certDirectory);
        if ('why' in current) deps.logger.warn({ reason: current.why }, 'rotateCertificates is on but the client certificate cannot be rotated');
        else out.certificateManager = { nodeName, ...current, observedAtMs: deps.clock.now(), jitter: deps.random.next() };
      }
      if (live.api.peek() && settings.config(live).serverTLSBootstrap) {
        // A good kubelet-server pair is served and renewed on schedule; without one, it is asked for at once.
        const serving = deps.servingCertificates.load(settings.flags(live).certDirectory, deps.clock.now());
        if ('why' in serving) deps.logger.info({ reason: serving.why }, 'No serving certificate yet: requesting one (the self-signed pair is served until it is issued)');
        const validity = 'why' in serving ? { notBeforeMs: 0, notAfterMs: 0 } : serving;
        const servingNames = { dnsNames: [nodeName], ipAddresses: hostIps };
        out.servingCertificateManager = { nodeName, servingNames, ...validity, observedAtMs: deps.clock.now(), jitter: deps.random.next() };
      }
      // Kubelet.Run starts the watchdog's feeder last, once the PLEG runs, just before the syncLoop.
      if (watchdog.enabled) {
        const { systemd: notifier, clock, systemdWatchdog } = deps;
        deps.lifetimes.add('systemdWatchdog', startSystemdWatchdog({ clock, notifier, intervalMs: watchdog.intervalMs, checks: systemdWatchdog.checks, logger: deps.logger }));
      } else {
        deps.logger.info('Systemd watchdog is not enabled');
      }
      return out;
    }),
    'startKubelet.servers': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      // Go's startKubelet starts ListenAndServePodResources whatever enableServer says, on a socket
      // under the root directory initializeModules made.
      const gates = live.gates.peek() ?? {};
      const podResources = await deps.podResources.start({
        socketPath: `${settings.rootDir(live)}/pod-resources/kubelet.sock`,
        getEnabled: gates.KubeletPodResourcesGet ?? true,
        useActivePods: gates.KubeletPodResourcesListUseActivePods ?? true,
      });
      deps.lifetimes.add('podResourcesServer', podResources.close);
      // Go starts the kubelet server and the read-only port only with enableServer.
      if (!c.enableServer) return { servers: 'disabled (enableServer: false)', podResources: podResources.address };
      // The Node's POST is in flight: the server's start would hold up its answer (first-registration.ts).
      const nodeStatus = input.outputs['startKubelet.run']?.nodeStatus;
      if (nodeStatus && nodeStatus.registerNode !== false) await live.firstRegistration.wait(deps.clock, SERVER_START_HOLD_MS);
      const { nodeName } = outputOf(input, 'run.nodeName');
      const nodeIPs = input.outputs['runKubelet.validateNodeIP']?.nodeIps ?? [];
      const { authentication: authn, authorization: authz } = c;
      const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
      const address = c.address;
      const server = await deps.servers.startKubelet({
        address,
        port: c.port,
        tls: {
          ...(str(c.tlsCertFile) ? { certFile: str(c.tlsCertFile)! } : {}),
          ...(str(c.tlsPrivateKeyFile) ? { keyFile: str(c.tlsPrivateKeyFile)! } : {}),
          certDir: settings.flags(live).certDirectory,
          hostname: nodeName,
          nodeIPs,
          ...(str(c.tlsMinVersion) ? { minVersion: str(c.tlsMinVersion)! } : {}),
          ...(c.tlsCipherSuites.length > 0 ? { cipherSuites: c.tlsCipherSuites } : {}),
        },
        auth: {
          anonymous: authn.anonymous.enabled,
          ...(str(authn.x509.clientCAFile) ? { clientCAFile: str(authn.x509.clientCAFile)! } : {}),
          // Passed through as configured: the server treats every mode but AlwaysAllow as Webhook (fails closed).
          authorizationMode: authz.mode as 'AlwaysAllow' | 'Webhook',
          nodeName,
          fineGrainedAuthz: live.gates.peek()?.KubeletFineGrainedAuthz ?? true,
        },
        debuggingHandlers: c.enableDebuggingHandlers,
        serverTLSBootstrap: c.serverTLSBootstrap && live.api.peek() !== undefined,
        systemLogHandler: c.enableSystemLogHandler,
        streamingIdleTimeoutMs: parseGoDuration(c.streamingConnectionIdleTimeout),
        ...(live.api.peek()
          ? {
              webhook: {
                authentication: authn.webhook.enabled,
                authorization: authz.mode === 'Webhook',
                tokenTtlMs: parseGoDuration(authn.webhook.cacheTTL),
                authorizedTtlMs: parseGoDuration(authz.webhook.cacheAuthorizedTTL),
                unauthorizedTtlMs: parseGoDuration(authz.webhook.cacheUnauthorizedTTL),
              },
            }
          : {}),
      });
      deps.lifetimes.add('kubeletServer', server.close);
      const readOnlyPort = c.readOnlyPort;
      if (readOnlyPort === 0) return { kubeletServer: server.address, readOnly: 'disabled', podResources: podResources.address };
      const readOnly = await deps.servers.startReadOnly({ address, port: readOnlyPort });
      deps.lifetimes.add('readOnlyServer', readOnly.close);
      return { kubeletServer: server.address, readOnly: readOnly.address, podResources: podResources.address };
    }),
    'run.healthz': phaseActor(async () => {
      const c = settings.config(live);
      const port = c.healthzPort;
      if (port === 0) return { healthz: 'disabled (healthzPort: 0)' };
      const server = await deps.healthz.start(c.healthzBindAddress, port);
      deps.lifetimes.add('healthz', server.close);
      return { healthz: server.address };
    }),
  } satisfies PhaseGroup;
}

/**
 * Go's NewMainKubelet gives the runtime the configured podCIDR (updatePodCIDR, in either mode; a
 * failure is logged, not fatal). In cluster mode the Node's pod CIDR replaces it later. Answers
 * the CIDR the runtime took, or undefined.
 */
async function givePodCIDR(runtime: CriRuntimeService, podCIDR: string, logger: Logger): Promise<string | undefined> {
  if (podCIDR === '') return undefined;
  try {
    await updateRuntimeConfig(runtime, podCIDR);
    logger.info({ originalPodCIDR: '', newPodCIDR: podCIDR }, 'Updating Pod CIDR');
    return podCIDR;
  } catch (err) {
    logger.error({ err }, 'Pod CIDR update failed');
    return undefined;
  }
}

/**
 * The device manager's input: its directory, and the resources the checkpoint registered (Go's
 * readCheckpoint, in deviceManager.Start). A checkpoint that cannot be used is logged and left
 * aside, as Go goes on without it.
 */
async function deviceManagerInput(dir: string, deps: PhaseDeps): Promise<NonNullable<KubeletRunOutput['deviceManager']>> {
  try {
    const checkpoint = await deps.devices.read(dir);
    return { dir, checkpointResources: Object.keys(checkpoint?.registeredDevices ?? {}).sort() };
  } catch (err) {
    deps.logger.warn({ err }, 'Continue after failing to read checkpoint file. Device allocation info may NOT be up-to-date');
    return { dir, checkpointResources: [] };
  }
}
