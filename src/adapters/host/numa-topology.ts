/**
 * The NUMA topology from sysfs (/sys/devices/system/node/node*), as cAdvisor reads it for Go's
 * kubelet. A kernel without NUMA support has no such directory: like cAdvisor, the machine is then
 * one node 0 holding all memory (/proc/meminfo) and the global hugepages (/sys/kernel/mm/hugepages).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { parseMemTotalBytes } from '../../domain/node/machine-info-parsers.js';
import { hugepageSizeKiB, numaNodeId, parseDistances, parseNodeMemTotal, type NumaNodeFacts } from '../../domain/resource-managers/numa-node.js';
import type { NumaTopologySource } from '../../ports/numa-topology.js';

async function entries(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch {
    return null;
  }
}

export class SysfsNumaTopology implements NumaTopologySource {
  /** `hostRoot`: prefix of every path read (default "/"). */
  constructor(private readonly hostRoot = '/') {}

  private path(...parts: string[]): string {
    return join(this.hostRoot, ...parts);
  }

  private async hugepages(dir: string): Promise<NumaNodeFacts['hugepages']> {
    const out: NumaNodeFacts['hugepages'] = [];
    for (const name of ((await entries(dir)) ?? []).sort()) {
      const size = hugepageSizeKiB(name);
      if (size === null) continue;
      const pages = Number((await readFile(join(dir, name, 'nr_hugepages'), 'utf8')).trim());
      out.push({ pageSizeKiB: size, pages });
    }
    return out.sort((a, b) => a.pageSizeKiB - b.pageSizeKiB);
  }

  async read(): Promise<NumaNodeFacts[]> {
    try {
      const base = this.path('/sys/devices/system/node');
      const ids = ((await entries(base)) ?? []).map(numaNodeId).filter((id): id is number => id !== null).sort((a, b) => a - b);
      if (ids.length === 0) return [await this.wholeMachine()];
      const nodes: NumaNodeFacts[] = [];
      for (const id of ids) {
        const dir = join(base, `node${id}`);
        const memoryBytes = parseNodeMemTotal(await readFile(join(dir, 'meminfo'), 'utf8'));
        if (memoryBytes === null) throw new Error(`no MemTotal in ${join(dir, 'meminfo')}`);
        const distances = parseDistances(await readFile(join(dir, 'distance'), 'utf8').catch(() => ''));
        nodes.push({ id, memoryBytes, hugepages: await this.hugepages(join(dir, 'hugepages')), distances });
      }
      return nodes;
    } catch (err) {
      if (err instanceof KubeletError) throw err;
      throw new KubeletError('KLT_ERR_HOST_IO', `failed to read the NUMA topology: ${(err as Error).message}`, { cause: err });
    }
  }

  private async wholeMachine(): Promise<NumaNodeFacts> {
    const memoryBytes = parseMemTotalBytes(await readFile(this.path('/proc/meminfo'), 'utf8'));
    if (memoryBytes === null) throw new Error(`no MemTotal in ${this.path('/proc/meminfo')}`);
    return { id: 0, memoryBytes, hugepages: await this.hugepages(this.path('/sys/kernel/mm/hugepages')), distances: [10] };
  }
}
