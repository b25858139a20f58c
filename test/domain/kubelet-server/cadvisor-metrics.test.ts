import { describe, expect, it } from 'vitest';
import { cadvisorMetricFamilies, type CadvisorScrape } from '../../../src/domain/kubelet-server/cadvisor-metrics.js';
import { containerKey } from '../../../src/domain/kubelet-server/container-identities.js';
import { renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';
import type { MachineInfo } from '../../../src/domain/node/host-types.js';
import { familySignatures, strictFamilies } from '../../support/strict-prometheus-text.js';
import { MS, SUMMARY, T_CPU, T_MEM, T_NODE } from './stats-metrics-fixture.js';

const NAMESPACE = SUMMARY.pods[0]!.podRef.namespace;
const MACHINE = { numCores: 8, memoryCapacityBytes: 16e9, machineId: 'm1', systemUuid: 's1', bootId: 'b1' } as MachineInfo;
const NOW = MS('2024-05-01T10:00:09.250Z');
const SCRAPE: CadvisorScrape = {
  summary: SUMMARY,
  identities: new Map([[containerKey(NAMESPACE, 'web', 'main'), { runtimeId: 'abc123', image: 'registry.local/web:1.0' }]]),
  machine: MACHINE,
  nowMs: NOW,
};

/** cAdvisor's families that kubelet-ts serves, with their types and help texts (no stability prefix: a raw collector). */
const CADVISOR_FAMILIES: Record<string, [string, string]> = {
  container_cpu_usage_seconds_total: ['counter', 'Cumulative cpu time consumed in seconds.'],
  container_memory_working_set_bytes: ['gauge', 'Current working set in bytes.'],
  container_memory_usage_bytes: ['gauge', 'Current memory usage in bytes, including all memory regardless of when it was accessed'],
  container_memory_rss: ['gauge', 'Size of RSS in bytes.'],
  container_start_time_seconds: ['gauge', 'Start time of the container since unix epoch in seconds.'],
  container_last_seen: ['gauge', 'Last time a container was seen by the exporter'],
  container_scrape_error: ['gauge', '1 if there was an error while getting container metrics, 0 otherwise'],
  machine_cpu_cores: ['gauge', 'Number of logical CPU cores.'],
  machine_memory_bytes: ['gauge', 'Amount of memory installed on the machine.'],
  machine_scrape_error: ['gauge', '1 if there was an error while getting machine metrics, 0 otherwise.'],
};

const main = { container: 'main', id: '', image: 'registry.local/web:1.0', name: 'abc123', namespace: NAMESPACE, pod: 'web' };
const root = { container: '', id: '/', image: '', name: '', namespace: '', pod: '' };
const scrape = (s: CadvisorScrape = SCRAPE) => strictFamilies(renderExposition(cadvisorMetricFamilies(s)));

describe('cadvisorMetricFamilies', () => {
  it('serves cAdvisor\'s names, types and help texts', () => {
    const f = scrape();
    expect(familySignatures(f)).toEqual(CADVISOR_FAMILIES);
  });

  it('gives CPU for the root container and each measured container, labelled as Go\'s kubelet labels them, cpu="total"', () => {
    expect(scrape().get('container_cpu_usage_seconds_total')?.samples).toEqual([
      { name: 'container_cpu_usage_seconds_total', labels: { ...root, cpu: 'total' }, value: 123.5, timestampMs: MS(T_NODE) },
      { name: 'container_cpu_usage_seconds_total', labels: { ...main, cpu: 'total' }, value: 1.5, timestampMs: MS(T_CPU) },
    ]);
  });

  it('gives memory working set, usage and (for containers) rss at the memory stats\' time', () => {
    const f = scrape();
    const of = (name: string) => f.get(name)?.samples.map((s) => [s.labels.id, s.labels.container, s.value, s.timestampMs]);
    expect(of('container_memory_working_set_bytes')).toEqual([['/', '', 4e9, MS(T_NODE)], ['', 'main', 2048, MS(T_MEM)]]);
    expect(of('container_memory_usage_bytes')).toEqual([['/', '', 5e9, MS(T_NODE)], ['', 'main', 4096, MS(T_MEM)]]);
    expect(of('container_memory_rss')).toEqual([['', 'main', 1024, MS(T_MEM)]]);
  });

  it('leaves image and name blank for a container the pods\' statuses do not know, as Go leaves unknown labels', () => {
    const starts = scrape().get('container_start_time_seconds')?.samples ?? [];
    expect(starts.map((s) => s.labels)).toEqual([main, { container: 'side\ncar', id: '', image: '', name: '', namespace: NAMESPACE, pod: 'web' }]);
    expect(starts.map((s) => [s.value, s.timestampMs])).toEqual([[MS('2024-05-01T09:00:05Z') / 1000, undefined], [MS('2024-05-01T09:00:06Z') / 1000, undefined]]);
  });

  it('marks every container seen, the root too, at the scrape\'s time', () => {
    const seen = scrape().get('container_last_seen')?.samples ?? [];
    expect(seen.map((s) => [s.labels.id, s.labels.container, s.value, s.timestampMs])).toEqual([
      ['/', '', Math.floor(NOW / 1000), NOW], ['', 'main', Math.floor(NOW / 1000), NOW], ['', 'side\ncar', Math.floor(NOW / 1000), NOW],
    ]);
  });

  it('describes the machine with its ids as labels', () => {
    const f = scrape();
    const ids = { boot_id: 'b1', machine_id: 'm1', system_uuid: 's1' };
    expect(f.get('machine_cpu_cores')?.samples).toEqual([{ name: 'machine_cpu_cores', labels: ids, value: 8 }]);
    expect(f.get('machine_memory_bytes')?.samples).toEqual([{ name: 'machine_memory_bytes', labels: ids, value: 16e9 }]);
    expect([f.get('container_scrape_error')?.samples[0]?.value, f.get('machine_scrape_error')?.samples[0]?.value]).toEqual([0, 0]);
  });

  it('answers container_scrape_error 1 and no container series when the stats could not be read', () => {
    const text = renderExposition(cadvisorMetricFamilies({ ...SCRAPE, summary: null }));
    expect(text).toMatch(/^container_scrape_error 1$/m);
    expect([...strictFamilies(text).keys()].filter((n) => n.startsWith('container_'))).toEqual(['container_scrape_error']);
  });

  it('answers machine_scrape_error 1 and no machine series before the machine was described', () => {
    const f = scrape({ ...SCRAPE, machine: null });
    expect(f.get('machine_scrape_error')?.samples[0]?.value).toBe(1);
    expect(f.has('machine_cpu_cores')).toBe(false);
  });
});
