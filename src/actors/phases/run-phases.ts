/**
 * run()'s phases (cmd/kubelet/app/server.go): lock file, /configz, standalone, node name, clients,
 * auth, cgroup roots, machine info, event recorder, container manager, OOM score, and RunKubelet's
 * node IP check. Phases that need an API server answer "none" in standalone mode, as the Go kubelet
 * does; settings that need one (webhook authentication or authorization, a bootstrap kubeconfig)
 * are refused there.
 */
import type { KubeletConfiguration } from '../../domain/config/types.js';
import { KubeletError, serializeError } from '../../domain/errors.js';
import { computeCgroupRoots, validateCgroupConfig, type CgroupConfig } from '../../domain/node/cgroup-roots.js';
import { resolveNodeName } from '../../domain/node/node-name.js';
import { resolveNodeIps } from '../../domain/node/node-ip.js';
import { computeAllocatable, reservedAmount } from '../../domain/resources/allocatable.js';
import type { PhaseDeps } from './deps.js';
import { nodeSideSettings } from '../../domain/node-status/node-side-settings.js';
import { outputOf, phaseActor, type PhaseGroup } from './phase-actor.js';
import { settings } from './settings.js';
import { parseGoDuration } from '../../domain/config/duration.js';
import { reservationsWithReservedCpus } from '../../domain/resource-managers/cpu-manager-setup.js';

/**
 * KUBELET_TS_NO_QOS_CGROUPS=1: this run creates no cgroup at all, as with `cgroupsPerQOS: false` and
 * `enforceNodeAllocatable: []`, whatever the configuration says. For the test and bench daemons
 * (vitest.config.ts and bench/run.ts set it), which must not make /kubepods on the host they run
 * on; the cgroup end-to-end test unsets it. Not a kubelet flag: Go has no such switch.
 */
export const NO_QOS_CGROUPS_ENV = 'KUBELET_TS_NO_QOS_CGROUPS';


/** The authenticators and authorizer the kubelet server will use (server.go BuildAuth). */
export function authPlan(config: KubeletConfiguration, standalone: boolean) {
  const { authentication: authn, authorization: authz } = config;
  const authenticators: string[] = [];
  if (authn.x509.clientCAFile) authenticators.push('x509');
  if (authn.webhook.enabled) {
    if (standalone) throw new KubeletError('KLT_ERR_CONFIG_INVALID', 'no client provided, cannot use webhook authentication (authentication.webhook.enabled needs --kubeconfig)');
    authenticators.push('webhook');
  }
  if (authn.anonymous.enabled) authenticators.push('anonymous');
  const mode = authz.mode;
  if (mode === 'Webhook' && standalone) {
    throw new KubeletError('KLT_ERR_CONFIG_INVALID', 'no client provided, cannot use webhook authorization (authorization.mode Webhook needs --kubeconfig)');
  }
  return { authenticators, authorizer: mode };
}

export function runPhases(deps: PhaseDeps) {
  const { live } = deps;
  const standalone = () => settings.kubeconfig(live) === '';
  return {
    'run.lockFile': phaseActor(async ({ signal, waiting }) => {
      const path = settings.lockFile(live);
      if (path === '' && settings.exitOnLockContention(live)) {
        throw new KubeletError('KLT_ERR_FLAG_INVALID', 'cannot exit on lock file contention: no lock file specified (--exit-on-lock-contention needs --lock-file)');
      }
      if (path === '') return { lockFile: null };
      const handle = await deps.lockFile.acquire(path, {
        exitOnContention: settings.exitOnLockContention(live),
        signal,
        onWaiting: () => waiting(`lock file ${path} is held by another process`),
      });
      deps.lifetimes.add('lockFile', () => handle.release());
      handle.onContention((c) => deps.requestStop(c.reason === 'waiter' ? `lock file contended by pid ${c.waiterPid}` : 'lock file removed'));
      return { lockFile: path, exitOnContention: settings.exitOnLockContention(live) };
    }),
    'run.configz': phaseActor(async () => {
      live.configz.set(deps.configzBody(settings.config(live), live.gates.peek() ?? {}, deps.config.notActedOn()));
      return { registered: true };
    }),
    'run.standalone': phaseActor(async () => {
      if (standalone()) deps.logger.info('Standalone mode, no API client');
      return { standalone: standalone() };
    }),
    'run.nodeName': phaseActor(async () => {
      const name = resolveNodeName({ hostnameOverride: settings.hostnameOverride(live), osHostname: deps.hostname.hostname() });
      return { ...name };
    }),
    'run.bootstrap': phaseActor(async ({ input, signal, waiting }) => {
      const bootstrapKubeconfigPath = settings.flags(live).bootstrapKubeconfig;
      if (bootstrapKubeconfigPath === '') return { bootstrap: 'none' as const };
      if (standalone()) throw new KubeletError('KLT_ERR_FLAG_INVALID', '--bootstrap-kubeconfig needs --kubeconfig: the kubeconfig the bootstrap writes');
      const { nodeName } = outputOf(input, 'run.nodeName');
      return deps.bootstrapClientCert({
        kubeconfigPath: settings.kubeconfig(live), bootstrapKubeconfigPath, certDir: settings.flags(live).certDirectory, nodeName, signal, waiting,
      });
    }),
    'run.clients': phaseActor(async () => {
      if (standalone()) return { clients: 'none' };
      const s = nodeSideSettings(settings.config(live), settings.flags(live));
      const api = await deps.build.apiClients({
        kubeconfigPath: settings.kubeconfig(live),
        qps: s.qps,
        burst: s.burst,
        eventQps: s.eventQps,
        eventBurst: s.eventBurst,
        heartbeatTimeoutMs: s.heartbeatTimeoutMs,
      });
      live.api.set(api);
      deps.lifetimes.add('apiClients', () => api.close());
      return { clients: ['main', 'events', 'heartbeat'], server: api.server, qps: s.qps, burst: s.burst, heartbeatTimeoutMs: s.heartbeatTimeoutMs };
    }),
    'run.auth': phaseActor(async () => authPlan(settings.config(live), standalone())),
    'run.cgroupRoots': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      const noQosCgroups = deps.env[NO_QOS_CGROUPS_ENV] === '1';
      if (noQosCgroups) deps.logger.info({ env: NO_QOS_CGROUPS_ENV }, 'QoS and pod cgroups are off for this run: cgroupsPerQOS and enforceNodeAllocatable are ignored');
      const cg: CgroupConfig = {
        cgroupRoot: c.cgroupRoot,
        cgroupsPerQOS: c.cgroupsPerQOS && !noQosCgroups,
        // The configured driver, once the runtime has agreed with it (or could not say).
        cgroupDriver: outputOf(input, 'run.cgroupDriverFromCRI').cgroupDriver,
        enforceNodeAllocatable: noQosCgroups ? [] : c.enforceNodeAllocatable,
        kubeReservedCgroup: c.kubeReservedCgroup,
        systemReservedCgroup: c.systemReservedCgroup,
        kubeletCgroups: c.kubeletCgroups,
        systemCgroups: c.systemCgroups,
        runtimeCgroups: settings.flags(live).runtimeCgroups,
      };
      const problems = validateCgroupConfig(cg);
      if (problems.length > 0) throw new KubeletError('KLT_ERR_CONFIG_INVALID', problems.join('; '));
      return computeCgroupRoots(cg);
    }),
    'run.machineInfo': phaseActor(async () => deps.machineInfo.read(settings.rootDir(live))),
    'run.eventRecorder': phaseActor(async ({ input }) => {
      const { nodeName } = outputOf(input, 'run.nodeName');
      const api = live.api.peek();
      if (standalone() || !api) {
        live.events.set(deps.build.logEventRecorder());
        return { sink: 'log' };
      }
      const recorder = deps.build.apiEventRecorder({ events: api.events, host: nodeName });
      live.events.set(recorder);
      deps.lifetimes.add('eventRecorder', () => recorder.flush());
      return { sink: 'apiserver' };
    }),
    'run.containerManager': phaseActor(async ({ input }) => {
      const c = settings.config(live);
      const info = outputOf(input, 'run.machineInfo');
      const roots = outputOf(input, 'run.cgroupRoots');
      const reserved = reservationsWithReservedCpus(c.kubeReserved, c.systemReserved, c.reservedSystemCPUs);
      const resources = computeAllocatable({
        numCores: info.numCores,
        memoryCapacityBytes: info.memoryCapacityBytes,
        rootFsCapacityBytes: info.rootFilesystem.capacityBytes,
        maxPods: c.maxPods,
        kubeReserved: reserved.kubeReserved,
        systemReserved: reserved.systemReserved,
        evictionHard: c.evictionHard,
      });
      // NewContainerManager: with cgroupsPerQOS the cgroup root must exist in every controller (and,
      // here, be writable); the QoS hierarchy itself is made later, once the runtime is up.
      const cgroups = roots.qos ? await deps.build.cgroups(roots.driver) : null;
      if (cgroups?.close) deps.lifetimes.add('cgroupDriver', () => cgroups.close?.());
      if (cgroups) {
        await cgroups.validate(roots.cgroupRoot).catch((err: unknown) => {
          throw new KubeletError('KLT_ERR_CONFIG_INVALID', `invalid configuration: ${(err as Error).message}`, { cause: err });
        });
      }
      live.containerManager.set(deps.build.containerManager({
        cgroups,
        roots,
        resources,
        pids: { capacity: info.maxPids, reserved: reservedAmount('pid', c.kubeReserved.pid) + reservedAmount('pid', c.systemReserved.pid) },
        kubeReserved: reserved.kubeReserved,
        systemReserved: reserved.systemReserved,
        pod: { enforceCpuLimits: c.cpuCFSQuota, cpuPeriodMicros: parseGoDuration(c.cpuCFSQuotaPeriod) * 1000, podPidsLimit: c.podPidsLimit },
        protectKernelDefaults: c.protectKernelDefaults,
      }));
      return resources;
    }),
    'run.oomScore': phaseActor(async () => {
      // The Go kubelet logs any failure here and carries on; so do we.
      const score = settings.oomScoreAdj(live);
      const outcome = await deps.oomScore.setOwn(score).catch((err: unknown) => {
        deps.logger.warn({ score, err: serializeError(err) }, 'Failed to set oom_score_adj, continuing');
        return 'failed' as const;
      });
      if (outcome === 'permission-denied') deps.logger.warn({ score }, 'Failed to set oom_score_adj, continuing');
      return { score, outcome };
    }),
    'runKubelet.validateNodeIP': phaseActor(async () => {
      const hostAddresses = deps.hostAddresses.addresses().map((a) => a.address);
      const r = resolveNodeIps({ nodeIp: settings.nodeIP(live), cloudProvider: settings.cloudProvider(live), hostAddresses });
      if (r.invalid.length > 0) deps.logger.warn({ invalid: r.invalid }, 'Could not parse some node IP(s), ignoring them');
      return { ...r };
    }),
    'run.sdNotify': phaseActor(async () => ({ outcome: await deps.systemd.notifyReady() })),
  } satisfies PhaseGroup;
}
