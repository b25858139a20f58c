/**
 * The topology manager (single-numa-node) with the Static memory manager, in cluster mode on the
 * real control plane (kube-lab.ts) and containerd (KUBELET_IT_CRI), on this machine's one NUMA node:
 * a Guaranteed pod is admitted with its memory pinned to node 0 (its container's cpuset cgroup has
 * mems 0, memory_manager_state holds its share), and a pod bound to the node that asks for hugepages
 * the node does not have is refused at admission with Go's TopologyAffinityError, as kubectl shows.
 * Each container reports its cpuset cgroup in its log.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeMemoryStateFile } from '../../src/domain/resource-managers/memory-state-file.js';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const ENDPOINT = containerdEndpoint();
// `sleep 1` is the idle loop of a container that must stay up; the test waits on its log line.
const REPORT = ['sh', '-c', 'grep -E ":cpuset:|^0::" /proc/self/cgroup; trap "exit 0" TERM; while :; do sleep 1 & wait $!; done'];
const MiB = 2 ** 20;

describeNeeding(kubeLabPartFor(ENDPOINT), 'the topology manager and the Static memory manager on the real control plane and containerd', () => {
  let n: LabNode;

  const logLines = (name: string, uid: string): string[] => {
    const base = join(n.dir, 'logs', `${n.ns}_${name}_${uid}`, 'main');
    if (!existsSync(base)) return [];
    return readdirSync(base).sort().flatMap((f) => readFileSync(join(base, f), 'utf8').split('\n')).map((l) => l.split(' ').slice(3).join(' ')).filter((l) => l !== '');
  };
  /** The container's cpuset cgroup's memory nodes, read on the host at the path the container reported. */
  const cgroupMems = (name: string, uid: string): string | undefined => {
    const line = logLines(name, uid).find((l) => /:cpuset:|^0::/.test(l));
    if (!line) return undefined;
    const path = line.slice(line.lastIndexOf(':') + 1);
    const file = line.startsWith('0::') ? join('/sys/fs/cgroup', path, 'cpuset.mems') : join('/sys/fs/cgroup/cpuset', path, 'cpuset.mems');
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  };
  const guaranteed = (extra: Record<string, string> = {}) => {
    const amounts = { cpu: '100m', memory: '32Mi', ...extra };
    return { limits: amounts, requests: amounts };
  };

  beforeAll(async () => {
    n = await startLabNode({
      name: 'kts-topo',
      endpoint: ENDPOINT,
      extraConfig: () => ['memoryManagerPolicy: Static', 'topologyManagerPolicy: single-numa-node', 'reservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]'],
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('admits a Guaranteed pod with its memory on NUMA node 0', async () => {
    await n.createPod('pinned', { containers: [{ name: 'main', image: BUSYBOX, command: REPORT, resources: guaranteed() }] });
    const pod = await n.whileUp('pinned running', async () => {
      const p = await n.pod('pinned');
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 60_000);
    const uid = pod.metadata.uid;
    expect(await n.whileUp('pinned reports its cgroup', () => cgroupMems('pinned', uid), 15_000)).toBe('0');
    const state = decodeMemoryStateFile(readFileSync(join(n.dir, 'root', 'memory_manager_state'), 'utf8'), 'Static');
    expect(state.ok && state.file.entries[uid]).toEqual({ main: [{ numaAffinity: [0], type: 'memory', size: 32 * MiB }] });
  }, 90_000);

  it('refuses a pod asking for hugepages the node lacks with TopologyAffinityError', async () => {
    await n.createPod('hugepages', { containers: [{ name: 'main', image: BUSYBOX, command: REPORT, resources: guaranteed({ 'hugepages-2Mi': '2Mi' }) }] });
    await n.whileUp('hugepages refused', async () => (await n.pod('hugepages'))?.status?.phase === 'Failed', 60_000);
    const shown = await runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', n.ns, 'get', 'pod', 'hugepages', '-o', 'jsonpath={.status.reason}|{.status.message}']);
    expect(shown.stdout).toBe('TopologyAffinityError|Pod was rejected: Resources cannot be allocated with Topology locality');
  }, 90_000);
});
