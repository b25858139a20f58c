import { describe, expect, it } from 'vitest';
import { computePodActions } from '../../../src/domain/runtime/compute-pod-actions.js';
import { generateContainerConfig, type NodeRuntimeContext } from '../../../src/domain/runtime/container-config.js';
import { hashContainer } from '../../../src/domain/runtime/container-hash.js';
import { ephemeralContainersToStart, namespaceTargetId, withNamespaceTarget } from '../../../src/domain/runtime/ephemeral-containers.js';
import type { RuntimeContainerState, RuntimeContainerStatus, RuntimePodStatus } from '../../../src/domain/runtime/pod-status.js';
import type { Container, EphemeralContainer, Pod, RestartPolicy } from '../../../src/domain/pod/types.js';

const app: Container = { name: 'app', image: 'app:1' };
const init: Container = { name: 'init', image: 'init:1' };
const debugger_: EphemeralContainer = { name: 'debugger', image: 'busybox:1.36', stdin: true, tty: true, targetContainerName: 'app' };
const shell: EphemeralContainer = { name: 'shell', image: 'busybox:1.36' };

function pod(opts: { restartPolicy?: RestartPolicy; ephemeral?: EphemeralContainer[]; init?: boolean; shareProcessNamespace?: boolean } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'uid' },
    spec: {
      restartPolicy: opts.restartPolicy ?? 'Always',
      containers: [app],
      ...(opts.init ? { initContainers: [init] } : {}),
      ...(opts.ephemeral ? { ephemeralContainers: opts.ephemeral } : {}),
      ...(opts.shareProcessNamespace ? { shareProcessNamespace: true } : {}),
    },
  };
}

let seq = 1000;
function ctr(spec: Container, state: RuntimeContainerState, exitCode = 0): RuntimeContainerStatus {
  return {
    id: `${spec.name}-${seq++}`, name: spec.name, state, createdAt: String(seq), startedAt: '0', finishedAt: '0', exitCode, reason: '', message: '',
    image: spec.image, imageRef: 'sha256:x', hash: hashContainer(spec), restartCount: 0, sandboxId: 'sb-0',
  };
}

function status(containers: RuntimeContainerStatus[], ready = true): RuntimePodStatus {
  return {
    uid: 'uid', name: 'p', namespace: 'ns', ips: ready ? ['10.0.0.2'] : [],
    sandboxes: [{ id: 'sb-0', attempt: 0, ready, createdAt: '1', ips: ['10.0.0.2'], hasNetworkStatus: true }], containers,
  };
}

describe('ephemeralContainersToStart', () => {
  it('names, in spec order, the ephemeral containers the runtime has never run', () => {
    expect(ephemeralContainersToStart(pod({ ephemeral: [debugger_, shell] }), status([ctr(app, 'running')]))).toEqual(['debugger', 'shell']);
  });

  it.each<[string, RuntimeContainerState, number]>([
    ['running', 'running', 0],
    ['exited with success', 'exited', 0],
    ['exited with a failure', 'exited', 1],
    ['created', 'created', 0],
  ])('never starts one again once it has run (%s)', (_name, state, exitCode) => {
    expect(ephemeralContainersToStart(pod({ ephemeral: [debugger_] }), status([ctr(app, 'running'), ctr(debugger_, state, exitCode)]))).toEqual([]);
  });
});

describe('computePodActions with ephemeral containers', () => {
  it('starts a new ephemeral container in the running pod and nothing else', () => {
    const actions = computePodActions(pod({ ephemeral: [debugger_] }), status([ctr(app, 'running')]));
    expect(actions).toMatchObject({ killPod: false, createSandbox: false, sandboxId: 'sb-0', containersToStart: [], containersToKill: [], ephemeralContainersToStart: ['debugger'] });
  });

  it('leaves the field out when there is none to start', () => {
    expect(computePodActions(pod({ ephemeral: [debugger_] }), status([ctr(app, 'running'), ctr(debugger_, 'exited', 0)])).ephemeralContainersToStart).toBeUndefined();
  });

  it('starts one while the pod is still initializing', () => {
    const actions = computePodActions(pod({ init: true, ephemeral: [debugger_] }), status([ctr(init, 'running')]));
    expect(actions.ephemeralContainersToStart).toEqual(['debugger']);
    expect(actions.containersToStart).toEqual([]);
  });

  it('does not carry one into a new sandbox', () => {
    const actions = computePodActions(pod({ ephemeral: [debugger_] }), status([ctr(app, 'exited', 1)], false));
    expect(actions.createSandbox).toBe(true);
    expect(actions.ephemeralContainersToStart).toBeUndefined();
  });

  it('starts none in a pod it kills because nothing is left to run', () => {
    const actions = computePodActions(pod({ restartPolicy: 'Never', ephemeral: [debugger_] }), status([ctr(app, 'exited', 0)]));
    expect(actions.killPod).toBe(true);
    expect(actions.ephemeralContainersToStart).toBeUndefined();
  });

  it('does not keep a pod alive: a running ephemeral container is no container to keep', () => {
    const actions = computePodActions(pod({ restartPolicy: 'Never', ephemeral: [debugger_] }), status([ctr(app, 'exited', 0), ctr(debugger_, 'running')]));
    expect(actions.killPod).toBe(true);
  });

  it('never kills a running ephemeral container of a pod it keeps', () => {
    const actions = computePodActions(pod({ ephemeral: [debugger_] }), status([ctr(app, 'running'), ctr(debugger_, 'running')]));
    expect(actions).toMatchObject({ killPod: false, containersToKill: [], containersToStart: [] });
  });
});

describe('namespaceTargetId and withNamespaceTarget', () => {
  it('finds the newest instance of the target container', () => {
    const running = ctr(app, 'running');
    expect(namespaceTargetId(debugger_, status([running, ctr(app, 'exited', 1)]))).toEqual({ id: running.id });
  });

  it('answers nothing without a target, and an error for a target the runtime does not know', () => {
    expect(namespaceTargetId(shell, status([ctr(app, 'running')]))).toEqual({});
    expect(namespaceTargetId(debugger_, status([]))).toEqual({ error: 'unable to find target container app' });
  });

  it.each<['CONTAINER' | 'POD' | 'NODE', string | undefined, object]>([
    ['CONTAINER', 'c1', { pid: 'TARGET', target_id: 'c1' }],
    ['CONTAINER', undefined, { pid: 'CONTAINER' }],
    ['POD', 'c1', { pid: 'POD' }],
    ['NODE', 'c1', { pid: 'NODE' }],
  ])('with a pid namespace %s and target %s gives %o', (pid, target, expected) => {
    const out = withNamespaceTarget({ network: 'POD', pid, ipc: 'POD' }, target);
    expect(out).toEqual({ network: 'POD', ipc: 'POD', ...expected });
  });

  const node: NodeRuntimeContext = { podLogsDir: '/var/log/pods', dns: { clusterDNS: [], clusterDomain: '', nodeIPs: [] }, hostIPs: [], memoryCapacityBytes: 1 << 30 };

  it('puts the target into the container config, stdin and tty as asked', () => {
    const config = generateContainerConfig(pod({ ephemeral: [debugger_] }), debugger_, { restartCount: 0, imageRef: 'sha256:b', podIPs: [], namespaceTargetId: 'c1' }, node);
    expect(config.linux?.security_context?.namespace_options).toEqual({ network: 'POD', pid: 'TARGET', ipc: 'POD', target_id: 'c1' });
    expect(config).toMatchObject({ stdin: true, tty: true, metadata: { name: 'debugger', attempt: 0 } });
  });

  it('keeps a shared process namespace rather than the target', () => {
    const config = generateContainerConfig(pod({ ephemeral: [debugger_], shareProcessNamespace: true }), debugger_, { restartCount: 0, imageRef: 'sha256:b', podIPs: [], namespaceTargetId: 'c1' }, node);
    expect(config.linux?.security_context?.namespace_options).toEqual({ network: 'POD', pid: 'POD', ipc: 'POD' });
  });
});
