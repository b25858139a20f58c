import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SysfsNumaTopology } from '../../../src/adapters/host/numa-topology.js';
import { parseNodeMemTotal } from '../../../src/domain/resource-managers/numa-node.js';

describe('SysfsNumaTopology', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'klt-numa-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };

  it('reads each node\'s memory, hugepages and distances', async () => {
    for (const id of [1, 0]) {
      const node = `/sys/devices/system/node/node${id}`;
      await put(`${node}/meminfo`, `Node ${id} MemTotal:        ${id === 0 ? 4096 : 8192} kB\nNode ${id} MemFree:  100 kB\n`);
      await put(`${node}/distance`, id === 0 ? '10 21\n' : '21 10\n');
      await put(`${node}/hugepages/hugepages-2048kB/nr_hugepages`, `${id * 4}\n`);
      await put(`${node}/hugepages/hugepages-1048576kB/nr_hugepages`, '0\n');
    }
    await put('/sys/devices/system/node/online', '0-1\n');
    expect(await new SysfsNumaTopology(root).read()).toEqual([
      { id: 0, memoryBytes: 4096 * 1024, distances: [10, 21], hugepages: [{ pageSizeKiB: 2048, pages: 0 }, { pageSizeKiB: 1048576, pages: 0 }] },
      { id: 1, memoryBytes: 8192 * 1024, distances: [21, 10], hugepages: [{ pageSizeKiB: 2048, pages: 4 }, { pageSizeKiB: 1048576, pages: 0 }] },
    ]);
  });

  it('takes a machine without NUMA nodes in sysfs as one node 0 with all memory', async () => {
    await put('/proc/meminfo', 'MemTotal:        2048 kB\n');
    await put('/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages', '3\n');
    expect(await new SysfsNumaTopology(root).read()).toEqual([{ id: 0, memoryBytes: 2048 * 1024, distances: [10], hugepages: [{ pageSizeKiB: 2048, pages: 3 }] }]);
  });

  it('fails with KLT_ERR_HOST_IO when a node has no memory total', async () => {
    await put('/sys/devices/system/node/node0/meminfo', 'garbage\n');
    await expect(new SysfsNumaTopology(root).read()).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
  });

  it('reads this machine\'s node 0 as its meminfo says', async () => {
    const nodes = await new SysfsNumaTopology().read();
    const first = nodes[0];
    expect(first?.id).toBe(0);
    const meminfo = await readFile('/sys/devices/system/node/node0/meminfo', 'utf8').catch(() => null);
    if (meminfo !== null) expect(first?.memoryBytes).toBe(parseNodeMemTotal(meminfo));
    expect(first?.memoryBytes).toBeGreaterThan(0);
  });
});
