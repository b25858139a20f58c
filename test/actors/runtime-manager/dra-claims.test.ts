/**
 * The runtime manager and the DRA claim manager, as Go's kuberuntime SyncPod and SyncTerminatedPod
 * use it: a pod's claims are prepared before its sandbox (a failure is a FailedPrepareDynamicResources
 * event and no sandbox), the containers that use a claim get its CDI devices, and the claims are
 * unprepared once the pod is killed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createRuntimeManager } from '../../../src/actors/runtime-manager/runtime-manager.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import type { DraClaimManager } from '../../../src/ports/dra-claims.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const pod: Pod = {
  metadata: { name: 'trainer', namespace: 'ml', uid: 'pod-1' },
  spec: {
    restartPolicy: 'Always',
    resourceClaims: [{ name: 'accel', resourceClaimName: 'gpus' }],
    containers: [
      { name: 'uses', image: 'busybox:1.36', resources: { claims: [{ name: 'accel', request: 'big' }] } },
      { name: 'plain', image: 'busybox:1.36' },
    ],
  },
};

let logsDir: string;
let cri: FakeCri;
let events: EventRequest[];
let calls: string[];
let failPrepare: string | null;
let manager: RuntimeManager;

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-dra-claims-'));
  const clock = new SimulatedClock();
  cri = new FakeCri({ clock });
  cri.addImage('busybox:1.36');
  events = [];
  calls = [];
  failPrepare = null;
  const dra: DraClaimManager = {
    async prepare(p) {
      calls.push(`prepare ${p.metadata.name} (sandboxes ${cri.sandboxes.size})`);
      if (failPrepare) throw new KubeletError('KLT_ERR_DRA_CLAIM', failPrepare);
    },
    cdiDevices: (p, c) => c.resources?.claims?.map((u) => `gpu.example.com/gpu=${p.metadata.uid}-${u.name}-${u.request}`) ?? [],
    async unprepare(p) {
      calls.push(`unprepare ${p.metadata.name} (running ${[...cri.containers.values()].filter((c) => c.state === 'CONTAINER_RUNNING').length})`);
    },
    reconcile: async () => 0,
    containerClaims: () => [],
    version: () => 0,
  };
  manager = createRuntimeManager({
    cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(),
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, dra }, events: () => ({ recordEvent: (e) => void events.push(e), flush: async () => undefined }),
  });
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

describe('DRA claims in the runtime manager', () => {
  it('prepares the claims before the sandbox and gives the CDI devices to the container using the claim only', async () => {
    await manager.syncPod(pod);
    expect(calls).toEqual(['prepare trainer (sandboxes 0)']);
    const configs = Object.fromEntries([...cri.containers.values()].map((c) => [c.config.metadata.name, c.config.CDI_devices]));
    expect(configs).toEqual({ uses: [{ name: 'gpu.example.com/gpu=pod-1-accel-big' }], plain: undefined });
  });

  it('makes no sandbox when the claims cannot be prepared: a FailedPrepareDynamicResources event, tried again at the next sync', async () => {
    failPrepare = 'pod trainer (pod-1) is not allowed to use ResourceClaim gpus (c-1)';
    await manager.syncPod(pod);
    expect(cri.sandboxes.size).toBe(0);
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Warning', 'FailedPrepareDynamicResources', 'Failed to prepare dynamic resources: pod trainer (pod-1) is not allowed to use ResourceClaim gpus (c-1)'],
    ]);
    failPrepare = null;
    await manager.syncPod(pod);
    expect(cri.sandboxes.size).toBe(1);
    expect(calls).toHaveLength(2);
  });

  it('unprepares the claims once the pod\'s containers are stopped, as a step of the kill', async () => {
    await manager.syncPod(pod);
    const killed = await manager.killPod(pod, 0);
    expect(killed.ok).toBe(true);
    expect(killed.steps.at(-1)).toMatchObject({ step: 'unprepareResources', target: 'ml/trainer', ok: true });
    expect(calls.at(-1)).toBe('unprepare trainer (running 0)');
  });

  it('leaves a pod without claims alone', async () => {
    const plain: Pod = { ...pod, spec: { ...pod.spec, resourceClaims: [], containers: [pod.spec.containers[1]!] } };
    await manager.syncPod(plain);
    await manager.killPod(plain, 0);
    expect(calls).toEqual([]);
  });
});
