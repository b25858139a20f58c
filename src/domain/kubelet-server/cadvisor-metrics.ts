/**
 * `/metrics/cadvisor`: the cAdvisor series the Go kubelet serves, limited to what kubelet-ts truly
 * measures, under cAdvisor's names, help texts and labels. Go labels every container series with
 * `container`, `id` (the cgroup), `image`, `name` (the runtime id), `namespace` and `pod`, blank
 * when unknown (server.go's containerPrometheusLabelsFunc); so do we:
 * - the node as cAdvisor's root container: `id="/"`, every other label blank;
 * - each running container of the summary: its pod, namespace and name, its runtime id and image
 *   from the pod's status, and `id` blank: kubelet-ts reads no cgroups (the embedded runtime has
 *   none), so it cannot name one.
 * Series carry the stats' own timestamps; container_start_time_seconds and the machine series
 * carry none. `container_scrape_error` / `machine_scrape_error` are 1 when the stats or the
 * machine's description could not be had, as cAdvisor's.
 *
 * Left out, because the summary does not measure them: per-CPU and user/system CPU, memory cache,
 * swap, failures and limits, file systems (cAdvisor labels them by device, which the runtime's
 * stats do not name), network, tasks, spec_* series and the pod-level (`container=""`) series,
 * which in Go are the pod cgroup's own.
 */
import type { MachineInfo } from '../node/host-types.js';
import type { ContainerStats, PodStats, Summary } from '../stats/summary-types.js';
import { containerKey, type ContainerIdentity } from './container-identities.js';
import type { Labels, MetricFamily, ScalarSample } from './prometheus-text.js';
import { cpuSecondsSamples, memorySamples, startTimeSamples, type MemoryFigure } from './stats-samples.js';

export interface CadvisorScrape {
  /** The CPU-and-memory summary; null when reading it failed. */
  summary: Summary | null;
  /** Running containers' runtime ids and images, by containerKey. */
  identities: ReadonlyMap<string, ContainerIdentity>;
  /** The machine as run.machineInfo read it; null before that. */
  machine: MachineInfo | null;
  /** The scrape's time, epoch ms: container_last_seen. */
  nowMs: number;
}

interface Seen {
  labels: Labels;
  stats: Pick<ContainerStats, 'cpu' | 'memory'>;
  startTime?: string;
}

const ROOT_LABELS: Labels = { container: '', id: '/', image: '', name: '', namespace: '', pod: '' };

function containerSeen(pod: PodStats, c: ContainerStats, identities: ReadonlyMap<string, ContainerIdentity>): Seen {
  const who = identities.get(containerKey(pod.podRef.namespace, pod.podRef.name, c.name));
  return {
    labels: { container: c.name, id: '', image: who?.image ?? '', name: who?.runtimeId ?? '', namespace: pod.podRef.namespace, pod: pod.podRef.name },
    stats: c,
    startTime: c.startTime,
  };
}

function memoryFamily(name: string, help: string, figure: MemoryFigure, seen: readonly Seen[]): MetricFamily {
  return { name, help, stability: null, type: 'gauge', samples: seen.flatMap((s) => memorySamples(s.stats.memory, figure, s.labels)) };
}

function scrapeError(name: string, help: string, failed: boolean): MetricFamily {
  return { name, help, stability: null, type: 'gauge', samples: [{ value: failed ? 1 : 0 }] };
}

function machineFamilies(m: MachineInfo | null): MetricFamily[] {
  if (!m) return [];
  const labels = { boot_id: m.bootId, machine_id: m.machineId, system_uuid: m.systemUuid };
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, help, stability: null, type: 'gauge', samples: [{ labels, value }] });
  return [
    gauge('machine_cpu_cores', 'Number of logical CPU cores.', m.numCores),
    gauge('machine_memory_bytes', 'Amount of memory installed on the machine.', m.memoryCapacityBytes),
  ];
}

export function cadvisorMetricFamilies(scrape: CadvisorScrape): MetricFamily[] {
  const { summary, identities } = scrape;
  const seen: Seen[] = summary
    ? [{ labels: ROOT_LABELS, stats: summary.node }, ...summary.pods.flatMap((p) => p.containers.map((c) => containerSeen(p, c, identities)))]
    : [];
  const lastSeen: ScalarSample[] = seen.map((s) => ({ labels: s.labels, value: Math.floor(scrape.nowMs / 1000), timestampMs: scrape.nowMs }));
  return [
    {
      name: 'container_cpu_usage_seconds_total', help: 'Cumulative cpu time consumed in seconds.', stability: null, type: 'counter',
      samples: seen.flatMap((s) => cpuSecondsSamples(s.stats.cpu, { ...s.labels, cpu: 'total' })),
    },
    memoryFamily('container_memory_working_set_bytes', 'Current working set in bytes.', 'workingSetBytes', seen),
    memoryFamily('container_memory_usage_bytes', 'Current memory usage in bytes, including all memory regardless of when it was accessed', 'usageBytes', seen),
    // The root's rss would be AnonPages, not cAdvisor's root cgroup figure: containers only.
    memoryFamily('container_memory_rss', 'Size of RSS in bytes.', 'rssBytes', seen.filter((s) => s.startTime !== undefined)),
    {
      name: 'container_start_time_seconds', help: 'Start time of the container since unix epoch in seconds.', stability: null, type: 'gauge',
      samples: seen.flatMap((s) => (s.startTime === undefined ? [] : startTimeSamples(s.startTime, s.labels))),
    },
    { name: 'container_last_seen', help: 'Last time a container was seen by the exporter', stability: null, type: 'gauge', samples: lastSeen },
    scrapeError('container_scrape_error', '1 if there was an error while getting container metrics, 0 otherwise', summary === null),
    ...machineFamilies(scrape.machine),
    scrapeError('machine_scrape_error', '1 if there was an error while getting machine metrics, 0 otherwise.', scrape.machine === null),
  ];
}
