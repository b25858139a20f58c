/**
 * The configured podCIDR reaches the runtime at start-up (Go's NewMainKubelet updatePodCIDR), on
 * the real binary, standalone, on the embedded runtime: its verbose Status shows the CIDR, and
 * start-up's journaled answer says the runtime took it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';

const POD_CIDR = '10.250.9.0/24';
let kubelet: StaticPodKubelet | undefined;

afterAll(async () => {
  await kubelet?.dispose();
}, 60_000);

it('gives the embedded runtime the configured podCIDR at start-up', async () => {
  kubelet = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: 'kts-pod-cidr', config: [`podCIDR: ${POD_CIDR}`] });
  const k = kubelet;
  await until('the pod CIDR given', () => k.stderr().includes('"msg":"Updating Pod CIDR"'), 30_000, k.stderr);
  const cri = createCriClient({ endpoint: `unix://${join(k.root, 'embedded-runtime', 'cri.sock')}` });
  try {
    const { info } = await cri.runtime.status(true);
    expect(JSON.parse(info.config ?? '{}')).toMatchObject({ podCIDR: POD_CIDR });
  } finally {
    cri.close();
  }
  expect(await k.stop()).toBe(0);
  const started = readFileSync(join(k.root, 'events', 'latest.jsonl'), 'utf8').split('\n').find((l) => l.includes('"name":"xstate.done.actor.runKubelet.newMainKubelet"'));
  expect(JSON.parse(started ?? '{}')).toMatchObject({ payload: { output: { podCIDR: POD_CIDR } } });
}, 60_000);
