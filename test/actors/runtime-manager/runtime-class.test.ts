/**
 * The runtime manager with RuntimeClasses and user namespaces, over the fake runtime: the class's
 * handler goes with RunPodSandbox; a missing class fails the sandbox step with FailedCreatePodSandBox
 * and no sandbox; hostUsers: false gets its own mapping on the sandbox and its containers only when
 * the runtime reports support, one range per pod, freed when the pod is removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createRuntimeManager, type RuntimeNodeOptions } from '../../../src/actors/runtime-manager/runtime-manager.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import type { RuntimeManager, SyncPodResult } from '../../../src/ports/runtime-manager.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const pod = (uid: string, spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: `web-${uid}`, namespace: 'shop', uid },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
});

let logsDir: string;
let cri: FakeCri;
let events: EventRequest[];

function build(node: Partial<RuntimeNodeOptions> = {}): RuntimeManager {
  const clock = new SimulatedClock();
  clock.set(1_000_000);
  return createRuntimeManager({
    cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(),
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, ...node },
    events: () => ({ recordEvent: (e) => void events.push(e), flush: async () => undefined }),
  });
}

const sandboxOf = (uid: string) => [...cri.sandboxes.values()].find((s) => s.config.metadata.uid === uid);
const containerOf = (uid: string) => [...cri.containers.values()].find((c) => sandboxOf(uid)?.id === c.sandboxId);
const failed = (r: SyncPodResult) => r.steps.filter((s) => !s.ok).map((s) => ({ step: s.step, reason: s.reason, code: s.error?.code, message: s.error?.message }));
const classes = { handlerOf: (name: string) => ({ gvisor: 'runsc' } as Record<string, string>)[name], hasSynced: () => true };

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-runtime-class-'));
  cri = new FakeCri({});
  cri.addImage('nginx:1.27');
  events = [];
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

describe('runtime manager: RuntimeClass', () => {
  it('runs the sandbox with the handler of the pod\'s RuntimeClass, and a pod without one with the default', async () => {
    const manager = build({ runtimeClasses: classes });
    expect((await manager.syncPod(pod('a', { runtimeClassName: 'gvisor' }))).ok).toBe(true);
    expect((await manager.syncPod(pod('b'))).ok).toBe(true);
    expect(sandboxOf('a')?.runtimeHandler).toBe('runsc');
    expect(sandboxOf('b')?.runtimeHandler).toBe('');
  });

  it('fails the sandbox of a pod naming a missing RuntimeClass with FailedCreatePodSandBox, creating nothing', async () => {
    const manager = build({ runtimeClasses: classes });
    const result = await manager.syncPod(pod('a', { runtimeClassName: 'nosuch' }));
    expect(failed(result)).toEqual([{ step: 'createPodSandbox', reason: 'CreatePodSandboxError', code: 'KLT_ERR_API_NOT_FOUND', message: 'runtimeclass.node.k8s.io "nosuch" not found' }]);
    expect(cri.calls.filter((c) => c.startsWith('runPodSandbox'))).toEqual([]);
    expect(events.map((e) => `${e.type} ${e.reason}: ${e.message}`)).toEqual(['Warning FailedCreatePodSandBox: Failed to create pod sandbox: runtimeclass.node.k8s.io "nosuch" not found']);
  });
});

describe('runtime manager: hostUsers', () => {
  it('sends the host\'s user namespace (mode NODE) for every pod while the gate is on, and none when it is off', async () => {
    await build().syncPod(pod('a'));
    expect(sandboxOf('a')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual({ mode: 'NODE' });
    expect(containerOf('a')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual({ mode: 'NODE' });
    await build({ userNamespaces: false }).syncPod(pod('b'));
    expect(sandboxOf('b')?.config.linux?.security_context?.namespace_options?.userns_options).toBeUndefined();
  });

  it('refuses hostUsers: false on a runtime that reports no handlers, never creating the sandbox', async () => {
    const result = await build().syncPod(pod('a', { hostUsers: false }));
    expect(failed(result)).toEqual([{
      step: 'createPodSandbox', reason: 'CreatePodSandboxError', code: 'KLT_ERR_CRI_UNIMPLEMENTED',
      message: 'spec.hostUsers is false but the pod cannot get a user namespace of its own: the handler "" is not known: the runtime reports no runtime handlers, so no user namespace support',
    }]);
    expect(sandboxOf('a')).toBeUndefined();
    expect(events.map((e) => e.reason)).toEqual(['FailedCreatePodSandBox']);
  });

  it('refuses a pod setting hostUsers while the gate is off, with Go\'s message', async () => {
    const result = await build({ userNamespaces: false }).syncPod(pod('a', { hostUsers: true }));
    expect(failed(result).map((f) => f.message)).toEqual(['the feature gate "UserNamespacesSupport" is disabled: can\'t set spec.HostUsers']);
  });

  it('gives each hostUsers: false pod its own range on a runtime that supports it, and frees it when the pod is removed', async () => {
    cri.runtimeHandlers = [{ name: '', features: { recursive_read_only_mounts: false, user_namespaces: true } }];
    const manager = build();
    await manager.syncPod(pod('a', { hostUsers: false }));
    await manager.syncPod(pod('b', { hostUsers: false }));
    const mapping = (hostId: number) => ({ mode: 'POD', uids: [{ host_id: hostId, container_id: 0, length: 65536 }], gids: [{ host_id: hostId, container_id: 0, length: 65536 }] });
    expect(sandboxOf('a')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual(mapping(65536));
    expect(containerOf('a')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual(mapping(65536));
    expect(sandboxOf('b')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual(mapping(131072));
    await manager.killPod(pod('a', { hostUsers: false }), 0);
    await manager.removePod('a');
    await manager.syncPod(pod('c', { hostUsers: false }));
    expect(sandboxOf('c')?.config.linux?.security_context?.namespace_options?.userns_options).toEqual(mapping(65536));
  });

  it('refuses hostUsers: false on a handler the runtime says lacks user namespaces', async () => {
    cri.runtimeHandlers = [{ name: '', features: { recursive_read_only_mounts: false, user_namespaces: false } }];
    const result = await build().syncPod(pod('a', { hostUsers: false }));
    expect(failed(result).map((f) => f.message)).toEqual(['spec.hostUsers is false but the pod cannot get a user namespace of its own: RuntimeClass handler "" does not support user namespaces']);
  });
});
