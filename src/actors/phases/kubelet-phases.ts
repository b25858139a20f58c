/**
 * createAndInitKubelet, startKubelet and run()'s tail: build the kubelet's parts over the connected
 * runtime (newMainKubelet), announce it (birthCry), start container GC, run Kubelet.Run's module
 * initialisation and hand the subsystems' inputs to the supervisor (startKubelet.run), start the
 * servers, healthz, and tell systemd.
 */
import { KubeletError } from '../../domain/errors.js';
import { parseGoDuration } from '../../domain/config/duration.js';
import type { PhaseId } from '../../domain/phases.js';
import type { KubeletRunOutput } from '../../machines/supervisor.machine.js';
import { KUBELET_TS_VERSION } from '../../domain/config/version.js';
import { nodeRegistrationSpec, nodeSideSettings } from '../../domain/node-status/node-side-settings.js';
import { admissionNode } from '../../domain/pod/admission-node.js';
import { nodeStaticFacts } from '../../domain/node-status/static-facts.js';
import type { MachineInfo } from '../../domain/node/host-types.js';
import type { NodeResources } from '../../domain/resources/allocatable.js';
import { createRuntimeManager } from '../runtime-manager/runtime-manager.js';
import { CONTAINER_GC_PERIOD_MS, IMAGE_GC_PERIOD_MS, startGarbageCollection } from '../gc/gc-loops.js';
import type { PhaseDeps } from './deps.js';
import { phaseActor } from './phase-actor.js';
import { settings } from './settings.js';

type Config = Record<string, unknown>;
const ms = (v: unknown, fallback: string) => parseGoDuration(typeof v === 'string' ? v : fallback);
const PLEG_RELIST_PERIOD_MS = 1000;

export function kubeletPhases(deps: PhaseDeps) {
  const { live } = deps;

  /**
   * Cluster mode's subsystems, from what the earlier phases found out: node registration and
   * status, the lease, the status manager. The jitters are drawn here (an effect), so the journal
   * records them and a replay uses the same numbers.
   */
  const clusterSubsystems = (outputs: Record<string, unknown>, nodeName: string, nodeIps: string[]): KubeletRunOutput => {
    const c = settings.config(live);
    const s = nodeSideSettings(c, live.parsed?.flags ?? {});
    const machineInfo = outputs['run.machineInfo'] as MachineInfo;
    const resources = outputs['run.containerManager'] as { capacity: NodeResources; allocatable: NodeResources };
    const version = outputs['run.preInitRuntime'] as { runtime_name?: string; runtime_version?: string };
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
      nodeStatus: { registration, facts, jitter: Math.random(), startedAtMs: deps.clock.now(), updateFrequencyMs: s.updateFrequencyMs, reportFrequencyMs: s.reportFrequencyMs, registerNode: s.registerNode },
      nodeLease: { nodeName, leaseDurationSeconds: s.leaseDurationSeconds, jitter: Math.random() },
    } as unknown as KubeletRunOutput;
  };
  return {
    'runKubelet.newMainKubelet': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      const info = input.outputs['run.machineInfo'] as { memoryCapacityBytes: number } | undefined;
      const ips = input.outputs['runKubelet.validateNodeIP'] as { nodeIps?: string[] } | undefined;
      if (!live.cri) throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'no CRI client: run.preInitRuntime did not connect');
      live.runtimeManager = createRuntimeManager({
        cri: live.cri,
        podLogsDir: String(c.podLogsDir ?? '/var/log/pods'),
        clock: deps.clock,
        logger: deps.logger,
        host: deps.runtimeHost,
        node: {
          hostIPs: ips?.nodeIps ?? [],
          ...(info ? { memoryCapacityBytes: info.memoryCapacityBytes } : {}),
          clusterDNS: (c.clusterDNS as string[] | undefined) ?? [],
          clusterDomain: String(c.clusterDomain ?? ''),
          resolvConf: String(c.resolvConf ?? '/etc/resolv.conf'),
          cpuCfsQuota: c.cpuCFSQuota !== false,
          cpuCfsQuotaPeriodMicros: ms(c.cpuCFSQuotaPeriod, '100ms') * 1000,
        },
      });
      return { podLogsDir: String(c.podLogsDir ?? '/var/log/pods'), parts: ['runtimeManager', 'podConfig', 'pleg', 'podWorkers', 'probeManager', 'statusCache'] };
    }),
    'runKubelet.birthCry': phaseActor(async ({ input }) => {
      const node = (input.outputs['run.nodeName'] as { nodeName?: string } | undefined)?.nodeName ?? '';
      // Go refers to the Node by name, its name standing in for the uid (nodeRef).
      live.events?.recordEvent({ object: { kind: 'Node', name: node, uid: node, namespace: '' }, type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' });
      deps.logger.info({ object: `Node/${node}`, type: 'Normal', reason: 'Starting' }, 'Starting kubelet.');
      return { reason: 'Starting', message: 'Starting kubelet.', sink: live.api ? 'apiserver' : 'log' };
    }),
    'runKubelet.garbageCollection': phaseActor(async () => {
      const c = settings.config(live);
      const flags = live.parsed?.flags ?? {};
      const containers = {
        minAgeMs: ms(flags.minimumGCAge, '0s'),
        maxPerPodContainer: Number(flags.maxPerPodContainerCount ?? 1),
        maxContainers: Number(flags.maxContainerCount ?? -1),
      };
      const images = {
        highThresholdPercent: Number(c.imageGCHighThresholdPercent ?? 85),
        lowThresholdPercent: Number(c.imageGCLowThresholdPercent ?? 80),
        minAgeMs: ms(c.imageMinimumGCAge, '2m0s'),
        maxAgeMs: ms(c.imageMaximumGCAge, '0s'),
      };
      const cri = live.cri!;
      const stop = startGarbageCollection({
        clock: deps.clock,
        logger: deps.logger,
        containers: { cri, policy: containers, activePods: deps.gc.activePods, podLogsDir: String(c.podLogsDir ?? '/var/log/pods'), listDirs: deps.gc.listDirs, removeDir: deps.gc.removeDir },
        images: { cri, policy: images, fsUsage: deps.gc.fsUsage },
      });
      deps.lifetimes.add('garbageCollection', stop);
      return { containerGC: { periodMs: CONTAINER_GC_PERIOD_MS, ...containers }, imageGC: { periodMs: IMAGE_GC_PERIOD_MS, ...images } };
    }),
    'startKubelet.run': phaseActor(async ({ input }) => {
      const c: Config = settings.config(live);
      const root = settings.rootDir(live);
      // initializeModules: the data directories and the container logs directory.
      await deps.makeDirectories([root, `${root}/pods`, `${root}/plugins`, `${root}/pod-resources`, String(c.podLogsDir ?? '/var/log/pods')]);
      const nodeName = (input.outputs['run.nodeName'] as { nodeName: string }).nodeName;
      const nodeIps = (input.outputs['runKubelet.validateNodeIP'] as { nodeIps?: string[] } | undefined)?.nodeIps ?? [];
      const hostIP = nodeIps[0] ?? deps.hostAddresses.addresses().find((a) => a.family === 4)?.address ?? '127.0.0.1';
      // Admission's node: the Node this kubelet registers (labels, taints) with its allocatable.
      const outputs = input.outputs as Record<string, unknown>;
      const registration = nodeRegistrationSpec(nodeSideSettings(c, live.parsed?.flags ?? {}), nodeName, outputs['run.machineInfo'] as MachineInfo);
      const { allocatable } = outputs['run.containerManager'] as { allocatable: NodeResources };
      const out: KubeletRunOutput = {
        runtime: { startedAtMs: deps.clock.now() },
        syncLoop: {
          nodeName,
          node: admissionNode(registration, allocatable),
          hostIP,
          podConfig: {
            staticPodPath: String(c.staticPodPath ?? ''),
            fileCheckFrequencyMs: ms(c.fileCheckFrequency, '20s'),
            staticPodURL: String(c.staticPodURL ?? ''),
            staticPodURLHeader: (c.staticPodURLHeader ?? {}) as Record<string, string[]>,
            httpCheckFrequencyMs: ms(c.httpCheckFrequency, '20s'),
          },
          podWorker: {
            resyncIntervalMs: ms(c.syncFrequency, '1m0s'),
            runtimeName: (input.outputs['run.preInitRuntime'] as { runtime_name?: string } | undefined)?.runtime_name ?? 'containerd',
          },
          pleg: { relistPeriodMs: PLEG_RELIST_PERIOD_MS },
        },
      };
      if (live.api) Object.assign(out, clusterSubsystems(input.outputs, nodeName, nodeIps.length > 0 ? nodeIps : [hostIP]));
      if (live.api && out.syncLoop) (out.syncLoop.podConfig as Record<string, unknown>).apiSource = true;
      return out;
    }),
    'startKubelet.servers': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      // Go starts the kubelet server and the read-only port only with enableServer.
      if (c.enableServer === false) return { servers: 'disabled (enableServer: false)' };
      const nodeName = (input.outputs['run.nodeName'] as { nodeName: string }).nodeName;
      const nodeIPs = (input.outputs['runKubelet.validateNodeIP'] as { nodeIps?: string[] } | undefined)?.nodeIps ?? [];
      const authn = (c.authentication ?? {}) as { anonymous?: { enabled?: boolean }; x509?: { clientCAFile?: string }; webhook?: { enabled?: boolean; cacheTTL?: string } };
      const authz = (c.authorization ?? {}) as { mode?: 'AlwaysAllow' | 'Webhook'; webhook?: { cacheAuthorizedTTL?: string; cacheUnauthorizedTTL?: string } };
      const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
      const address = String(c.address ?? '0.0.0.0');
      const server = await deps.servers.startKubelet({
        address,
        port: Number(c.port ?? 10250),
        tls: {
          ...(str(c.tlsCertFile) ? { certFile: str(c.tlsCertFile)! } : {}),
          ...(str(c.tlsPrivateKeyFile) ? { keyFile: str(c.tlsPrivateKeyFile)! } : {}),
          certDir: String(live.parsed?.flags.certDirectory ?? `${settings.rootDir(live)}/pki`),
          hostname: nodeName,
          nodeIPs,
          ...(str(c.tlsMinVersion) ? { minVersion: str(c.tlsMinVersion)! } : {}),
          ...(Array.isArray(c.tlsCipherSuites) && c.tlsCipherSuites.length > 0 ? { cipherSuites: c.tlsCipherSuites as string[] } : {}),
        },
        auth: {
          anonymous: authn.anonymous?.enabled === true,
          ...(str(authn.x509?.clientCAFile) ? { clientCAFile: str(authn.x509?.clientCAFile)! } : {}),
          authorizationMode: authz.mode ?? 'AlwaysAllow',
          nodeName,
        },
        debuggingHandlers: c.enableDebuggingHandlers !== false,
        systemLogHandler: c.enableSystemLogHandler !== false,
        ...(live.api
          ? {
              webhook: {
                authentication: authn.webhook?.enabled === true,
                authorization: authz.mode === 'Webhook',
                tokenTtlMs: ms(authn.webhook?.cacheTTL, '2m0s'),
                authorizedTtlMs: ms(authz.webhook?.cacheAuthorizedTTL, '5m0s'),
                unauthorizedTtlMs: ms(authz.webhook?.cacheUnauthorizedTTL, '30s'),
              },
            }
          : {}),
      });
      deps.lifetimes.add('kubeletServer', server.close);
      const readOnlyPort = Number(c.readOnlyPort ?? 0);
      if (readOnlyPort === 0) return { kubeletServer: server.address, readOnly: 'disabled' };
      const readOnly = await deps.servers.startReadOnly({ address, port: readOnlyPort });
      deps.lifetimes.add('readOnlyServer', readOnly.close);
      return { kubeletServer: server.address, readOnly: readOnly.address };
    }),
    'run.healthz': phaseActor(async () => {
      const c = settings.config(live);
      const port = Number(c.healthzPort ?? 10248);
      if (port === 0) return { healthz: 'disabled (healthzPort: 0)' };
      const server = await deps.healthz.start(String(c.healthzBindAddress ?? '127.0.0.1'), port);
      deps.lifetimes.add('healthz', server.close);
      return { healthz: server.address };
    }),
  } satisfies Partial<Record<PhaseId, unknown>>;
}
