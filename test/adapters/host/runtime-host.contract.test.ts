/**
 * The RuntimeHost fake behaves like the node adapter where the runtime manager depends on it:
 * directories are made with their parents, a missing log directory lists as empty, only regular
 * files are listed, a missing file rejects with ENOENT.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import type { RuntimeHost } from '../../../src/ports/runtime-host.js';
import { FakeRuntimeHost } from '../../fakes/fake-runtime-host.js';
import { threadPoolRequestsDuring } from '../../support/thread-pool-requests.js';

interface Rig {
  host: RuntimeHost;
  writeFile(path: string, text: string): Promise<void>;
}

const rigs: [string, () => Rig][] = [
  ['node adapter', () => ({ host: createRuntimeHost(), writeFile: (path, text) => writeFile(path, text) })],
  ['fake', () => {
    const host = new FakeRuntimeHost();
    return { host, writeFile: async (path, text) => void host.files.set(path, text) };
  }],
];

describe.each(rigs)('RuntimeHost (%s)', (_name, makeRig) => {
  let dir: string;
  let rig: Rig;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'klt-runtime-host-'));
    rig = makeRig();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists a directory that does not exist as empty', async () => {
    expect(await rig.host.listFiles(join(dir, 'pod', 'app'))).toEqual([]);
  });

  it('lists the files of a directory it made, not its subdirectories', async () => {
    await rig.host.makeDirectory(join(dir, 'pod', 'app'));
    await rig.host.makeDirectory(join(dir, 'pod', 'app', 'nested'));
    await rig.writeFile(join(dir, 'pod', 'app', '0.log'), '');
    await rig.writeFile(join(dir, 'pod', 'app', '1.log'), '');
    expect((await rig.host.listFiles(join(dir, 'pod', 'app'))).sort()).toEqual(['0.log', '1.log']);
  });

  it('reads a text file, and rejects with ENOENT for a missing one', async () => {
    await rig.writeFile(join(dir, 'resolv.conf'), 'nameserver 10.0.0.10\n');
    expect(await rig.host.readTextFile(join(dir, 'resolv.conf'))).toBe('nameserver 10.0.0.10\n');
    await expect(rig.host.readTextFile(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads a rewritten file again, even one of the same size', async () => {
    const path = join(dir, 'resolv.conf');
    await rig.writeFile(path, 'nameserver 10.0.0.10\n');
    expect(await rig.host.readTextFile(path)).toBe('nameserver 10.0.0.10\n');
    await rig.writeFile(path, 'nameserver 10.0.0.11\n');
    expect(await rig.host.readTextFile(path)).toBe('nameserver 10.0.0.11\n');
  });

  it('knows how much memory the machine has', () => {
    expect(rig.host.memoryCapacityBytes()).toBeGreaterThan(0);
  });
});

describe('RuntimeHost (node adapter) reading --resolv-conf', () => {
  it('reads an unchanged file through the thread pool once, even for a burst of readers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'klt-runtime-host-'));
    try {
      const path = join(dir, 'resolv.conf');
      await writeFile(path, 'nameserver 10.0.0.10\n');
      const one = await threadPoolRequestsDuring(() => createRuntimeHost().readTextFile(path));
      expect(one).toBeGreaterThan(0);
      const host = createRuntimeHost();
      const burst = await threadPoolRequestsDuring(() => Promise.all(Array.from({ length: 10 }, () => host.readTextFile(path))));
      expect(burst).toBe(one);
      expect(await threadPoolRequestsDuring(() => host.readTextFile(path))).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
