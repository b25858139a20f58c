import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sysfsCpuTopology } from '../../../src/adapters/host/cpu-topology.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

/** A /sys/devices/system with 4 CPUs: 2 cores of 2 threads (0,2 and 1,3), one socket, NUMA nodes as given. */
function fakeSys(numa: Record<string, string> | null): string {
  const root = mkdtempSync(join(tmpdir(), 'kts-sys-'));
  dirs.push(root);
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  };
  write('cpu/online', '0-3');
  for (const [id, siblings] of [[0, '0,2'], [1, '1,3'], [2, '0,2'], [3, '1,3']] as const) {
    write(`cpu/cpu${id}/topology/physical_package_id`, '0');
    write(`cpu/cpu${id}/topology/thread_siblings_list`, siblings);
  }
  for (const [node, list] of Object.entries(numa ?? {})) write(`node/${node}/cpulist`, list);
  return root;
}

describe('sysfsCpuTopology', () => {
  it('reads each online CPU’s core (its lowest sibling), socket and NUMA node', async () => {
    expect(await sysfsCpuTopology(fakeSys({ node0: '0-1', node1: '2-3' })).read()).toEqual({ cpus: [
      { id: 0, core: 0, socket: 0, numaNode: 0 }, { id: 1, core: 1, socket: 0, numaNode: 0 },
      { id: 2, core: 0, socket: 0, numaNode: 1 }, { id: 3, core: 1, socket: 0, numaNode: 1 },
    ] });
  });

  it('puts every CPU on NUMA node 0 when sysfs has no NUMA nodes', async () => {
    const topology = await sysfsCpuTopology(fakeSys(null)).read();
    expect(topology.cpus.map((c) => c.numaNode)).toEqual([0, 0, 0, 0]);
  });
});
