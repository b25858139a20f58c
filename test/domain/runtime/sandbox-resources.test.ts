/**
 * The sandbox's resources and overhead against Go's applySandboxResources (the cases of its
 * kuberuntime_sandbox_linux test, with the values Go answers): the pod's own resources leave the
 * overhead out, the overhead is taken as guaranteed, and a pod without overhead sends an empty one.
 */
import { describe, expect, it } from 'vitest';
import type { Pod, ResourceList } from '../../../src/domain/pod/types.js';
import { generatePodSandboxConfig } from '../../../src/domain/runtime/container-config.js';
import { sandboxOverhead, sandboxResources } from '../../../src/domain/runtime/sandbox-resources.js';

const pod = (requests: ResourceList | undefined, limits: ResourceList | undefined, overhead?: ResourceList): Pod => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u' },
  spec: {
    containers: [{ name: 'c', image: 'i', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } }],
    ...(overhead ? { overhead } : {}),
  },
});

describe('sandbox resources', () => {
  it.each([
    {
      name: 'a pod with overhead',
      pod: pod({ memory: '128Mi', cpu: '2' }, { memory: '256Mi', cpu: '4' }, { memory: '128Mi', cpu: '1' }),
      resources: { cpu_shares: '2048', memory_limit_in_bytes: '268435456', cpu_period: '100000', cpu_quota: '400000' },
      overhead: { cpu_shares: '1024', memory_limit_in_bytes: '134217728', cpu_period: '100000', cpu_quota: '100000' },
    },
    {
      name: 'a pod without overhead',
      pod: pod({ memory: '128Mi', cpu: '2' }, { memory: '256Mi', cpu: '4' }),
      resources: { cpu_shares: '2048', memory_limit_in_bytes: '268435456', cpu_period: '100000', cpu_quota: '400000' },
      overhead: {},
    },
    {
      name: 'a pod with limits only (the request defaults to the limit)',
      pod: pod(undefined, { memory: '64Mi', cpu: '500m' }, { cpu: '250m' }),
      resources: { cpu_shares: '512', memory_limit_in_bytes: '67108864', cpu_period: '100000', cpu_quota: '50000' },
      overhead: { cpu_shares: '256', cpu_period: '100000', cpu_quota: '25000' },
    },
    {
      name: 'a best-effort pod with a memory-only overhead',
      pod: pod(undefined, undefined, { memory: '120Mi' }),
      resources: { cpu_shares: '2', cpu_period: '100000', cpu_quota: '0' },
      overhead: { cpu_shares: '2', memory_limit_in_bytes: '125829120', cpu_period: '100000', cpu_quota: '0' },
    },
  ])('$name', ({ pod, resources, overhead }) => {
    expect(sandboxResources(pod, {})).toEqual(resources);
    expect(sandboxOverhead(pod, {})).toEqual(overhead);
  });

  it('leaves quota and period out with --cpu-cfs-quota=false, and uses --cpu-cfs-quota-period', () => {
    const p = pod({ cpu: '1' }, { cpu: '1' }, { cpu: '100m' });
    expect(sandboxResources(p, { cpuCfsQuota: false })).toEqual({ cpu_shares: '1024' });
    expect(sandboxOverhead(p, { cpuCfsQuotaPeriodMicros: 50_000 })).toEqual({ cpu_shares: '102', cpu_period: '50000', cpu_quota: '5000' });
  });

  it('is set on the sandbox config', () => {
    const config = generatePodSandboxConfig(pod({ cpu: '2' }, { cpu: '4' }, { cpu: '1' }), 0, { podLogsDir: '/var/log/pods', dns: { clusterDNS: [], clusterDomain: '', nodeIPs: [] }, hostIPs: [], memoryCapacityBytes: 0 });
    expect(config.linux?.resources).toEqual({ cpu_shares: '2048', cpu_period: '100000', cpu_quota: '400000' });
    expect(config.linux?.overhead).toEqual({ cpu_shares: '1024', cpu_period: '100000', cpu_quota: '100000' });
  });
});
