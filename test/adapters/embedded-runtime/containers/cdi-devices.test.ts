/**
 * CRI's CDI_devices on the embedded runtime, end to end over its socket: specs in two spec
 * directories (the later winning), a container that prints what the devices set in its
 * environment, and the refusals, each naming what cannot be done.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { createCriClient, type GrpcCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../../../src/adapters/embedded-runtime/index.js';
import type { ContainerConfig, PodSandboxConfig } from '../../../../src/ports/cri.js';
import { until } from '../../../support/daemon.js';

describe('CDI devices on the embedded runtime', () => {
  let dir: string;
  let runtime: EmbeddedRuntime;
  let cri: GrpcCriClient;
  let sandbox: string;
  let sandboxConfig: PodSandboxConfig;

  const container = (name: string, devices: string[]): ContainerConfig => ({
    metadata: { name, attempt: 0 }, image: { image: 'kubelet-ts.local/busybox:1.0' },
    command: ['sh', '-c', 'echo "gpu=$GPU driver=$GPU_DRIVER claim=$CLAIM own=$OWN"'], log_path: `${name}.log`,
    envs: [{ key: 'OWN', value: Buffer.from('mine') }, { key: 'GPU', value: Buffer.from('overridden') }],
    CDI_devices: devices.map((name) => ({ name })),
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kts-embedded-cdi-'));
    const [etc, run] = [join(dir, 'etc-cdi'), join(dir, 'run-cdi')];
    await Promise.all([mkdir(etc), mkdir(run)]);
    await writeFile(join(etc, 'gpu.yaml'), [
      'cdiVersion: 0.5.0', 'kind: gpu.example.com/gpu', 'containerEdits: {env: [GPU_DRIVER=535]}',
      'devices:', '- {name: g0, containerEdits: {env: [GPU=0]}}', '- {name: g1, containerEdits: {env: [GPU=1], deviceNodes: [{path: /dev/null}]}}',
    ].join('\n'));
    // The later directory's spec of the same kind wins for g0's name and adds a claim device.
    await writeFile(join(run, 'claim.json'), JSON.stringify({ cdiVersion: '0.3.0', kind: 'gpu.example.com/gpu', devices: [{ name: 'claim-1', containerEdits: { env: ['CLAIM=yes'] } }] }));
    await writeFile(join(run, 'broken.json'), '{"cdiVersion": "0.3.0"');
    runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state'), cdiSpecDirs: [etc, run] });
    cri = createCriClient({ endpoint: runtime.endpoint });
    sandboxConfig = { metadata: { name: 'p', uid: 'p', namespace: 'default', attempt: 0 }, log_directory: join(dir, 'logs') };
    sandbox = await cri.runtime.runPodSandbox(sandboxConfig);
  });

  afterAll(async () => {
    for (const s of await cri.runtime.listPodSandbox().catch(() => [])) await cri.runtime.removePodSandbox(s.id).catch(() => undefined);
    cri?.close();
    await runtime?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sets the environment its devices\' specs give, over the container\'s own, and leaves a broken spec out', async () => {
    const id = await cri.runtime.createContainer(sandbox, container('ok', ['gpu.example.com/gpu=g0', 'gpu.example.com/gpu=claim-1']), sandboxConfig);
    await cri.runtime.startContainer(id);
    const line = await until('the container\'s line', async () => {
      const text = await readFile(join(dir, 'logs', 'ok.log'), 'utf8').catch(() => '');
      return /stdout F (.*)\n/.exec(text)?.[1];
    }, 10_000);
    expect(line).toBe('gpu=0 driver=535 claim=yes own=mine');
  });

  it('fails CreateContainer for a device no spec defines, naming it', async () => {
    await expect(cri.runtime.createContainer(sandbox, container('unknown', ['gpu.example.com/gpu=g7']), sandboxConfig)).rejects.toMatchObject({
      message: expect.stringContaining('CDI device injection failed: unresolvable CDI devices gpu.example.com/gpu=g7 (no spec defines it)'),
    });
  });

  it('refuses a device that adds device nodes, which its host processes cannot be given', async () => {
    await expect(cri.runtime.createContainer(sandbox, container('nodes', ['gpu.example.com/gpu=g1']), sandboxConfig)).rejects.toMatchObject({
      message: expect.stringContaining('CDI devices gpu.example.com/gpu=g1 add deviceNodes: the embedded runtime applies CDI environment edits only'),
    });
  });
});
