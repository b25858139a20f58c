/**
 * The start-up read of the resource managers' state files through the host's reader: each file is
 * refused by its own size bound before it is read, naming the file and the bound.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointFiles } from '../../../src/adapters/host/checkpoint-files.js';
import { readStateFiles, resourceStateFiles } from '../../../src/actors/resource-managers/state-files.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import {
  CPU_MANAGER_STATE_MAX_BYTES, MEMORY_MANAGER_STATE_MAX_BYTES, POD_RESOURCES_STATE_MAX_BYTES,
} from '../../../src/domain/resource-managers/state-file-limits.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'klt-state-files-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A file one byte over `bytes`, sparse: nothing is written. */
function oversize(name: string, bytes: number): string {
  const path = join(root, name);
  writeFileSync(path, '');
  truncateSync(path, bytes + 1);
  return path;
}

const files = () => resourceStateFiles({ rootDir: root, inventory: EMPTY_INVENTORY, policies: { cpu: 'none', memory: 'None' }, files: checkpointFiles, warn: () => {} });

describe('the resource managers\' state files', () => {
  it('sizes the CPU manager\'s bound for 2,048 exclusive containers, the others for 1,024 pods of 16 containers', () => {
    expect(CPU_MANAGER_STATE_MAX_BYTES).toBe(688_128);
    expect(MEMORY_MANAGER_STATE_MAX_BYTES).toBe(8_503_296);
    expect(POD_RESOURCES_STATE_MAX_BYTES).toBe(MEMORY_MANAGER_STATE_MAX_BYTES);
  });

  it.each([
    ['cpu_manager_state', CPU_MANAGER_STATE_MAX_BYTES],
    ['memory_manager_state', MEMORY_MANAGER_STATE_MAX_BYTES],
  ])('refuses a %s over its bound before reading it, naming the file and the bound', async (name, bound) => {
    const path = oversize(name, bound);
    await expect(readStateFiles(files())).rejects.toMatchObject({
      code: 'KLT_ERR_HOST_IO', message: `cannot read the state file ${path}: is ${bound + 1} bytes, over the ${bound} byte limit`,
    });
  });

  it('reads a cpu_manager_state at its bound', async () => {
    const head = '{"policyName":"none","defaultCpuSet":"","checksum":0}';
    writeFileSync(join(root, 'cpu_manager_state'), head.padEnd(CPU_MANAGER_STATE_MAX_BYTES, ' '));
    await expect(readStateFiles(files())).resolves.toEqual({});
  });

  it('starts without an allocated_pods_state over its bound, reporting the file and the bound', async () => {
    const path = oversize('allocated_pods_state', POD_RESOURCES_STATE_MAX_BYTES);
    const warnings: string[] = [];
    const read = resourceStateFiles({ rootDir: root, inventory: EMPTY_INVENTORY, policies: { cpu: 'none', memory: 'None' }, files: checkpointFiles, warn: (m) => warnings.push(m) });
    await expect(readStateFiles(read)).resolves.toEqual({});
    expect(warnings).toEqual([expect.stringContaining(`cannot read the state file ${path}: is ${POD_RESOURCES_STATE_MAX_BYTES + 1} bytes, over the ${POD_RESOURCES_STATE_MAX_BYTES} byte limit`)]);
  });
});
