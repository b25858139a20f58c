/**
 * The runtime manager records Go's container events (kuberuntime, the image manager): reasons,
 * messages, types, and the container reference (fieldPath spec.containers{name} /
 * spec.initContainers{name} / spec.ephemeralContainers{name}).
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
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import type { EventRecorder } from '../../../src/ports/event-recorder.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { FakeCri } from '../../fakes/fake-cri.js';

/** Keeps every recorded event. */
class RecordingEvents implements EventRecorder {
  readonly events: EventRequest[] = [];
  recordEvent(request: EventRequest): void { this.events.push(request); }
  flush = async () => undefined;
  /** "Type Reason fieldPath: message", the way a reader of `kubectl describe` sees them. */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.object.fieldPath ?? '-'}: ${e.message}`);
  }
}

const init: Container = { name: 'init', image: 'busybox:1.36', command: ['true'] };
const app: Container = { name: 'app', image: 'nginx:1.27' };
const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' },
  spec: { containers: [app], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
});

let logsDir: string;
let clock: SimulatedClock;
let cri: FakeCri;
let recorder: RecordingEvents;
let manager: RuntimeManager;

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-container-events-'));
  clock = new SimulatedClock();
  clock.set(1_000_000);
  cri = new FakeCri({ clock });
  cri.addImage('busybox:1.36');
  cri.addImage('nginx:1.27');
  recorder = new RecordingEvents();
  manager = createRuntimeManager({
    cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(),
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3 }, events: () => recorder,
  });
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

describe('runtime manager events', () => {
  it('records Pulled (already present), Created and Started against the container, init containers included', async () => {
    await manager.syncPod(pod({ initContainers: [init] }));
    expect(recorder.lines()).toEqual([
      'Normal Pulled spec.initContainers{init}: Container image "busybox:1.36" already present on machine',
      'Normal Created spec.initContainers{init}: Created container init',
      'Normal Started spec.initContainers{init}: Started container init',
    ]);
    expect(recorder.events[0]?.object).toEqual({ kind: 'Pod', apiVersion: 'v1', namespace: 'shop', name: 'web', uid: 'uid-1', fieldPath: 'spec.initContainers{init}' });
  });

  it('records Pulling and Pulled with the pull time when it pulls', async () => {
    await manager.syncPod(pod({ containers: [{ name: 'latest', image: 'nginx' }] }));
    expect(recorder.lines().slice(0, 2)).toEqual([
      'Normal Pulling spec.containers{latest}: Pulling image "nginx"',
      expect.stringMatching(/^Normal Pulled spec\.containers\{latest\}: Successfully pulled image "nginx" in \d+(\.\d+)?m?s$/),
    ]);
  });

  it('records Failed with the pull error, then Error: ErrImagePull; BackOff and Error: ImagePullBackOff while backing off', async () => {
    const p = pod({ containers: [{ name: 'app', image: 'registry.example/app:2' }] });
    cri.failNext('pullImage', new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'manifest unknown'));
    await manager.syncPod(p);
    expect(recorder.lines()).toEqual([
      'Normal Pulling spec.containers{app}: Pulling image "registry.example/app:2"',
      'Warning Failed spec.containers{app}: Failed to pull image "registry.example/app:2": manifest unknown',
      'Warning Failed spec.containers{app}: Error: ErrImagePull',
    ]);
    recorder.events.length = 0;
    clock.increment(1_000);
    await manager.syncPod(p, { imagePullBackOffEnds: { 'registry.example/app:2': clock.now() + 9_000 } });
    expect(recorder.lines()).toEqual([
      'Normal BackOff spec.containers{app}: Back-off pulling image "registry.example/app:2"',
      'Warning Failed spec.containers{app}: Error: ImagePullBackOff',
    ]);
  });

  it('records Failed with the runtime\'s error when the container cannot be created', async () => {
    cri.failNext('createContainer', new KubeletError('KLT_ERR_CRI_FAILED', 'no space left on device'));
    await manager.syncPod(pod());
    expect(recorder.lines().at(-1)).toBe('Warning Failed spec.containers{app}: Error: no space left on device');
  });

  it('records BackOff with Go\'s message while a crashed container backs off', async () => {
    const p = pod();
    await manager.syncPod(p);
    for (let i = 0; i < 2; i++) {
      cri.exitContainer(cri.latestContainer('app')?.id ?? '', 1);
      clock.increment(1_000);
      await manager.syncPod(p);
    }
    expect(recorder.lines().at(-1)).toBe('Warning BackOff spec.containers{app}: Back-off restarting failed container app in pod web_shop(uid-1)');
  });

  it('records Killing: "Stopping container" when the pod is killed, the reason when a probe failed', async () => {
    const p = pod();
    await manager.syncPod(p);
    recorder.events.length = 0;
    await manager.syncPod(p, { probes: { livenessFailed: ['app'] } });
    expect(recorder.lines()[0]).toBe('Normal Killing spec.containers{app}: Container app failed liveness probe, will be restarted');
    recorder.events.length = 0;
    await manager.killPod(p, 1);
    expect(recorder.lines()).toEqual(['Normal Killing spec.containers{app}: Stopping container app']);
  });

  it('records Pulled, Created, Started and Killing against an ephemeral container', async () => {
    const p = pod();
    await manager.syncPod(p);
    recorder.events.length = 0;
    const debugging = pod({ ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.36', targetContainerName: 'app' }] });
    await manager.syncPod(debugging);
    expect(recorder.lines()).toEqual([
      'Normal Pulled spec.ephemeralContainers{debugger}: Container image "busybox:1.36" already present on machine',
      'Normal Created spec.ephemeralContainers{debugger}: Created container debugger',
      'Normal Started spec.ephemeralContainers{debugger}: Started container debugger',
    ]);
    recorder.events.length = 0;
    await manager.killPod(debugging, 1);
    expect(recorder.lines().sort()).toEqual(['Normal Killing spec.containers{app}: Stopping container app', 'Normal Killing spec.ephemeralContainers{debugger}: Stopping container debugger']);
  });

  it('records FailedCreatePodSandBox on the pod, and SandboxChanged when a dead sandbox is replaced', async () => {
    cri.failNext('runPodSandbox', new KubeletError('KLT_ERR_CRI_FAILED', 'failed to setup network for sandbox'));
    await manager.syncPod(pod());
    expect(recorder.lines()).toEqual(['Warning FailedCreatePodSandBox -: Failed to create pod sandbox: failed to setup network for sandbox']);
    const first = await manager.syncPod(pod());
    cri.failSandbox(first.sandboxId ?? '');
    recorder.events.length = 0;
    await manager.syncPod(pod());
    expect(recorder.lines()[0]).toBe('Normal SandboxChanged -: Pod sandbox changed, it will be killed and re-created.');
  });
});
