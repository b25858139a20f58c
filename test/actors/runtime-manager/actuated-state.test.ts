import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointFiles } from '../../../src/adapters/host/checkpoint-files.js';
import { openActuatedState } from '../../../src/actors/runtime-manager/actuated-state.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { POD_RESOURCES_STATE_MAX_BYTES } from '../../../src/domain/resource-managers/state-file-limits.js';

const amounts = { cpuRequestMilli: 250, cpuLimitMilli: 500, memoryRequestBytes: 1024, memoryLimitBytes: 2048 };

describe('openActuatedState', () => {
  let root: string;
  beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'actuated-')); });
  afterEach(async () => { await rm(root, { recursive: true, force: true }); });

  it('starts empty without a file, and a reopened state has what was recorded and not what was removed', async () => {
    const state = await openActuatedState(checkpointFiles, root);
    expect(state.podUids()).toEqual([]);
    await state.set('u1', 'app', amounts);
    await state.set('u2', 'web', amounts);
    await state.removePod('u2');
    const reopened = await openActuatedState(checkpointFiles, root);
    expect(reopened.containers('u1')).toEqual({ app: amounts });
    expect(reopened.containers('u2')).toBeUndefined();
    expect(reopened.podUids()).toEqual(['u1']);
  });

  it('does not rewrite the file for amounts it already has', async () => {
    const writes: string[] = [];
    const files = { read: async () => null, write: async (_: string, text: string) => { writes.push(text); } };
    const state = await openActuatedState(files, root);
    await state.set('u1', 'app', amounts);
    await state.set('u1', 'app', { ...amounts });
    await state.removePod('nobody');
    expect(writes).toHaveLength(1);
  });

  it('refuses a corrupt file, naming it', async () => {
    await writeFile(join(root, 'actuated_pods_state'), '{"entries":{},"checksum":"bad"}');
    const err = await openActuatedState(checkpointFiles, root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeletError);
    expect((err as KubeletError).code).toBe('KLT_ERR_CONFIG_INVALID');
    expect((err as Error).message).toContain(join(root, 'actuated_pods_state'));
  });

  it('refuses a path that is not a regular file, naming it', async () => {
    await mkdir(join(root, 'actuated_pods_state'));
    const err = await openActuatedState(checkpointFiles, root).catch((e: unknown) => e);
    expect((err as KubeletError).code).toBe('KLT_ERR_HOST_IO');
    expect((err as Error).message).toContain(join(root, 'actuated_pods_state'));
  });

  it('writes the file it reads back', async () => {
    const state = await openActuatedState(checkpointFiles, root);
    await state.set('u1', 'app', amounts);
    expect(JSON.parse(await readFile(join(root, 'actuated_pods_state'), 'utf8')).entries).toEqual({ u1: { app: amounts } });
  });

  it('refuses a file over its bound before reading it, naming the file and the bound', async () => {
    const path = join(root, 'actuated_pods_state');
    await writeFile(path, '');
    await truncate(path, POD_RESOURCES_STATE_MAX_BYTES + 1);
    await expect(openActuatedState(checkpointFiles, root)).rejects.toMatchObject({
      code: 'KLT_ERR_HOST_IO', message: `cannot read the state file ${path}: is ${POD_RESOURCES_STATE_MAX_BYTES + 1} bytes, over the ${POD_RESOURCES_STATE_MAX_BYTES} byte limit`,
    });
  });
});
