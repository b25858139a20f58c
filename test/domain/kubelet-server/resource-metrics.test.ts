import { describe, expect, it } from 'vitest';
import { renderExposition } from '../../../src/domain/kubelet-server/prometheus-text.js';
import { resourceMetricFamilies } from '../../../src/domain/kubelet-server/resource-metrics.js';
import { familySignatures, strictFamilies } from '../../support/strict-prometheus-text.js';
import { MS, SUMMARY, T_CPU, T_MEM, T_NODE } from './stats-metrics-fixture.js';

/** The Go kubelet's /metrics/resource families (1.29), each with its type and help. */
const GO_FAMILIES: Record<string, [string, string]> = {
  node_cpu_usage_seconds_total: ['counter', '[STABLE] Cumulative cpu time consumed by the node in core-seconds'],
  node_memory_working_set_bytes: ['gauge', '[STABLE] Current working set of the node in bytes'],
  container_cpu_usage_seconds_total: ['counter', '[STABLE] Cumulative cpu time consumed by the container in core-seconds'],
  container_memory_working_set_bytes: ['gauge', '[STABLE] Current working set of the container in bytes'],
  container_start_time_seconds: ['gauge', '[STABLE] Start time of the container since unix epoch in seconds'],
  pod_cpu_usage_seconds_total: ['counter', '[STABLE] Cumulative cpu time consumed by the pod in core-seconds'],
  pod_memory_working_set_bytes: ['gauge', '[STABLE] Current working set of the pod in bytes'],
  scrape_error: ['gauge', '[ALPHA] (Deprecated since 1.29.0) 1 if there was an error while getting container metrics, 0 otherwise'],
  resource_scrape_error: ['gauge', '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise'],
};

const scrape = () => strictFamilies(renderExposition(resourceMetricFamilies(SUMMARY)));
const main = { container: 'main', pod: 'web', namespace: 'shop "north"\\' };

describe('resourceMetricFamilies', () => {
  it('serves exactly the Go families, with Go\'s types and help texts', () => {
    const families = scrape();
    expect(familySignatures(families)).toEqual(GO_FAMILIES);
  });

  it('gives the node\'s CPU in core-seconds and working set, at the stats\' own times', () => {
    const f = scrape();
    expect(f.get('node_cpu_usage_seconds_total')?.samples).toEqual([{ name: 'node_cpu_usage_seconds_total', labels: {}, value: 123.5, timestampMs: MS(T_NODE) }]);
    expect(f.get('node_memory_working_set_bytes')?.samples[0]).toMatchObject({ value: 4e9, timestampMs: MS(T_NODE) });
  });

  it('labels containers by container, pod and namespace, escaping quotes, backslashes and newlines', () => {
    const f = scrape();
    expect(f.get('container_cpu_usage_seconds_total')?.samples).toEqual([{ name: 'container_cpu_usage_seconds_total', labels: main, value: 1.5, timestampMs: MS(T_CPU) }]);
    expect(f.get('container_memory_working_set_bytes')?.samples).toEqual([{ name: 'container_memory_working_set_bytes', labels: main, value: 2048, timestampMs: MS(T_MEM) }]);
    const text = renderExposition(resourceMetricFamilies(SUMMARY));
    expect(text).toContain('container="side\\ncar",namespace="shop \\"north\\"\\\\",pod="web"');
  });

  it('gives start times in epoch seconds without a timestamp, for containers that measured nothing yet too', () => {
    const starts = scrape().get('container_start_time_seconds')?.samples ?? [];
    expect(starts.map((s) => [s.labels.container, s.value, s.timestampMs])).toEqual([
      ['main', MS('2024-05-01T09:00:05Z') / 1000, undefined],
      ['side\ncar', MS('2024-05-01T09:00:06Z') / 1000, undefined],
    ]);
  });

  it('leaves out a container\'s CPU and memory when the stats lack them, rather than zeroing them', () => {
    const f = scrape();
    expect(f.get('container_cpu_usage_seconds_total')?.samples.map((s) => s.labels.container)).toEqual(['main']);
    expect(f.get('container_memory_working_set_bytes')?.samples.map((s) => s.labels.container)).toEqual(['main']);
  });

  it('labels pods by pod and namespace', () => {
    const f = scrape();
    expect(f.get('pod_cpu_usage_seconds_total')?.samples).toEqual([{ name: 'pod_cpu_usage_seconds_total', labels: { pod: 'web', namespace: main.namespace }, value: 1.5, timestampMs: MS(T_CPU) }]);
    expect(f.get('pod_memory_working_set_bytes')?.samples[0]?.value).toBe(2048);
  });

  it('answers scrape_error and resource_scrape_error 0 after a good read', () => {
    const f = scrape();
    expect([f.get('scrape_error')?.samples[0]?.value, f.get('resource_scrape_error')?.samples[0]?.value]).toEqual([0, 0]);
  });

  it('answers only the scrape errors, set to 1, when the stats could not be read', () => {
    const text = renderExposition(resourceMetricFamilies(null));
    const f = strictFamilies(text);
    expect([...f.keys()].sort()).toEqual(['resource_scrape_error', 'scrape_error']);
    expect(text).toMatch(/^scrape_error 1$/m);
    expect(text).toMatch(/^resource_scrape_error 1$/m);
  });

  it('leaves out a start time at or before the epoch, as Go does', () => {
    const pod = SUMMARY.pods[0]!;
    const f = strictFamilies(renderExposition(resourceMetricFamilies({ ...SUMMARY, pods: [{ ...pod, containers: [{ name: 'x', startTime: '1970-01-01T00:00:00Z' }] }] })));
    expect(f.has('container_start_time_seconds')).toBe(false);
  });
});

describe('resourceMetricFamilies: node swap', () => {
  it('gives node_swap_usage_bytes, stamped with the memory stats\' time as Go does, only when the node has swap', () => {
    const withSwap = { ...SUMMARY, node: { ...SUMMARY.node, swap: { time: T_CPU, swapUsageBytes: 4096n, swapAvailableBytes: 1n } } };
    const f = strictFamilies(renderExposition(resourceMetricFamilies(withSwap)));
    expect(f.get('node_swap_usage_bytes')).toMatchObject({ type: 'gauge', help: '[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems' });
    expect(f.get('node_swap_usage_bytes')?.samples).toEqual([{ name: 'node_swap_usage_bytes', labels: {}, value: 4096, timestampMs: MS(T_NODE) }]);
    expect(scrape().has('node_swap_usage_bytes')).toBe(false);
  });
});
