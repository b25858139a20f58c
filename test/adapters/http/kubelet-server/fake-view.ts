import type {
  ContainerLogFile, ContainerLookup, ExecOutput, KubeletView, KubeletMetricsSnapshot, ProbeMetricsSnapshot, StreamingSession,
} from '../../../../src/ports/kubelet-view.js';
import type { MachineInfo } from '../../../../src/domain/node/host-types.js';
import { findContainer } from '../../../../src/domain/pod/pod-containers.js';
import type { Pod } from '../../../../src/domain/pod/types.js';
import type { Summary } from '../../../../src/domain/stats/summary-types.js';

/** A KubeletView over canned state; tests change the fields between requests. */
export class FakeKubeletView implements KubeletView {
  podsList: Pod[] = [];
  logPaths = new Map<string, string>();
  config: { kubeletconfig: unknown } = { kubeletconfig: { kind: 'KubeletConfiguration', staticPodURLHeader: { A: ['<masked>'] } } };
  snapshot: KubeletMetricsSnapshot = {
    runningPods: 0, runningContainers: {}, plegLastRelistAtMs: null, plegRelistDurationsMs: [], podStartDurationsMs: [],
    podWorkerDurationsMs: [], runtimeOperations: [], startedPods: 0, nodeStartup: [],
  };
  probes: ProbeMetricsSnapshot = { processStartSeconds: 1_700_000_000, series: [] };
  /** Running containers by `namespace/pod/container` → runtime id (and the pod's uid). */
  containers = new Map<string, { containerId: string; uid: string }>();
  /** What execInContainer answers, or the error it rejects with. */
  execResult: ExecOutput | Error = { stdout: Buffer.from(''), stderr: Buffer.from(''), exitCode: 0 };
  readonly execs: Array<{ containerId: string; cmd: string[] }> = [];
  readonly calls: string[] = [];

  pods(): Pod[] {
    this.calls.push('pods');
    return this.podsList;
  }
  configz() {
    return this.config;
  }
  metrics(): KubeletMetricsSnapshot {
    return this.snapshot;
  }
  containerLogPath(namespace: string, pod: string, container: string, previous: boolean): ContainerLogFile {
    const path = this.logPaths.get(`${namespace}/${pod}/${container}${previous ? '#previous' : ''}`);
    if (path !== undefined) return { path };
    return { error: previous ? `previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} not found` : `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} is waiting to start: ContainerCreating` };
  }
  /** What /stats/summary answers; an Error here makes statsSummary reject with it. */
  summary: Summary | Error = { node: { nodeName: 'node-1', startTime: '2024-01-01T00:00:00Z' }, pods: [] };
  async statsSummary(onlyCpuAndMemory: boolean): Promise<Summary> {
    this.calls.push(`statsSummary ${onlyCpuAndMemory}`);
    if (this.summary instanceof Error) throw this.summary;
    return this.summary;
  }
  /** What machineInfo answers. */
  machine: MachineInfo | null = null;
  machineInfo(): MachineInfo | null {
    return this.machine;
  }
  probeMetrics(): ProbeMetricsSnapshot {
    return this.probes;
  }
  runningContainer(namespace: string, pod: string, container: string, uid?: string): ContainerLookup {
    const p = this.podsList.find((x) => x.metadata.name === pod && (x.metadata.namespace ?? 'default') === namespace);
    if (!p || (uid !== undefined && p.metadata.uid !== uid)) return { found: 'noPod' };
    if (!findContainer(p, container)) return { found: 'noContainer' };
    const hit = this.containers.get(`${namespace}/${pod}/${container}`);
    return hit ? { found: 'running', containerId: hit.containerId } : { found: 'notRunning' };
  }
  async execInContainer(containerId: string, cmd: string[]): Promise<ExecOutput> {
    this.execs.push({ containerId, cmd });
    if (this.execResult instanceof Error) throw this.execResult;
    return this.execResult;
  }
  /** Sandbox ids by pod uid. */
  sandboxes = new Map<string, string>();
  async podSandboxId(podUid: string): Promise<string | null> {
    return this.sandboxes.get(podUid) ?? null;
  }
  /** What streamingUrl answers, or the error it rejects with; every session asked for is recorded. */
  streamingAnswer: string | Error = 'http://127.0.0.1:1/unset';
  readonly sessions: StreamingSession[] = [];
  async streamingUrl(session: StreamingSession): Promise<string> {
    this.sessions.push(session);
    if (this.streamingAnswer instanceof Error) throw this.streamingAnswer;
    return this.streamingAnswer;
  }
}

export function testPod(name: string, namespace = 'default', containers = ['app']): Pod {
  return {
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
    status: {
      phase: 'Running',
      containerStatuses: containers.map((c) => ({ name: c, image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: {} } })),
    },
  };
}
