/**
 * The CPU topology from sysfs, as Go's cAdvisor reads it for the CPU manager: the online CPUs, each
 * one's socket (topology/physical_package_id), its core (the lowest id among its thread siblings,
 * unique across sockets: Go's getUniqueCoreID) and its NUMA node (/sys/devices/system/node/node*\/cpulist;
 * node 0 on a machine without NUMA nodes in sysfs).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CpuInfo } from '../../domain/resource-managers/cpu-inventory.js';
import { parseCpuSet } from '../../domain/resource-managers/cpu-set.js';
import type { CpuTopologySource } from '../../ports/resource-managers.js';

const readText = async (path: string): Promise<string> => (await readFile(path, 'utf8')).trim();

/** CPU id → NUMA node id, from each node's cpulist. */
async function numaNodesOf(sysDevices: string): Promise<Map<number, number>> {
  const byCpu = new Map<number, number>();
  const nodeDir = join(sysDevices, 'node');
  const names = await readdir(nodeDir).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^node(\d+)$/.exec(name);
    if (!m) continue;
    for (const cpu of parseCpuSet(await readText(join(nodeDir, name, 'cpulist')))) byCpu.set(cpu, Number(m[1]));
  }
  return byCpu;
}

export function sysfsCpuTopology(sysDevices = '/sys/devices/system'): CpuTopologySource {
  return {
    async read() {
      const cpuDir = join(sysDevices, 'cpu');
      const online = parseCpuSet(await readText(join(cpuDir, 'online')));
      const numa = await numaNodesOf(sysDevices);
      const cpus: CpuInfo[] = [];
      for (const id of online) {
        const topology = join(cpuDir, `cpu${id}`, 'topology');
        const socket = Number(await readText(join(topology, 'physical_package_id')));
        const siblings = parseCpuSet(await readText(join(topology, 'thread_siblings_list')));
        cpus.push({ id, core: Math.min(id, ...siblings), socket: Math.max(socket, 0), numaNode: numa.get(id) ?? 0 });
      }
      return { cpus };
    },
  };
}
