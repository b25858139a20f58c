import { describe, expect, it } from 'vitest';
import { containersReadyCondition, needToReconcilePodReadiness, podInitializedCondition, podReadyCondition } from '../../../src/domain/pod/conditions.js';
import type { ContainerStatus, Pod, PodCondition } from '../../../src/domain/pod/types.js';

const GATE1 = 'k8s.io/test-condition1';
const GATE2 = 'k8s.io/test-condition2';
const pod = (gates: string[] = [GATE1, GATE2], status?: Pod['status']): Pod => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
  spec: { containers: [{ name: 'main', image: 'busybox' }], readinessGates: gates.map((conditionType) => ({ conditionType })) },
  ...(status ? { status } : {}),
});
const ready = (r: boolean): ContainerStatus[] => [{ name: 'main', ready: r, restartCount: 0, image: 'busybox', imageID: '', state: { running: {} } }];
const cond = (type: string, status: PodCondition['status']): PodCondition => ({ type, status });

describe('podReadyCondition', () => {
  it('says what ContainersReady says while the containers are not ready, whatever the gates', () => {
    expect(podReadyCondition(pod(), [cond(GATE1, 'True'), cond(GATE2, 'True')], ready(false), 'Running'))
      .toEqual({ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [main]' });
  });

  it('is False with ReadinessGatesNotReady and Go\'s messages while a gate\'s condition is missing or not True', () => {
    expect(podReadyCondition(pod(), [cond(GATE2, 'False')], ready(true), 'Running')).toEqual({
      type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady',
      message: `corresponding condition of pod readiness gate "${GATE1}" does not exist., the status of pod readiness gate "${GATE2}" is not "True", but False`,
    });
    expect(podReadyCondition(pod(), [cond(GATE1, 'True'), cond(GATE2, 'Unknown')], ready(true), 'Running'))
      .toMatchObject({ status: 'False', message: `the status of pod readiness gate "${GATE2}" is not "True", but Unknown` });
  });

  it('is True once the containers are ready and every gate\'s condition is True', () => {
    expect(podReadyCondition(pod(), [cond(GATE1, 'True'), cond(GATE2, 'True')], ready(true), 'Running')).toEqual({ type: 'Ready', status: 'True' });
    expect(podReadyCondition(pod([]), [], ready(true), 'Running')).toEqual({ type: 'Ready', status: 'True' });
  });
});

describe('needToReconcilePodReadiness', () => {
  const shown = (readyStatus: PodCondition, gates: PodCondition[]): Pod['status'] => ({ phase: 'Running', conditions: [...gates, readyStatus], containerStatuses: ready(true) });
  const notReady = { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: `corresponding condition of pod readiness gate "${GATE1}" does not exist.` } as const;

  it('is true when a gate\'s condition changed what Ready should say, its status or its message', () => {
    expect(needToReconcilePodReadiness(pod([GATE1], shown(notReady, [cond(GATE1, 'True')])))).toBe(true);
    expect(needToReconcilePodReadiness(pod([GATE1], shown(notReady, [cond(GATE1, 'False')])))).toBe(true);
    expect(needToReconcilePodReadiness(pod([GATE1], shown(cond('Ready', 'True'), [cond(GATE1, 'False')])))).toBe(true);
  });

  it('is false when Ready already says it, without gates, or before the kubelet reported a Ready', () => {
    expect(needToReconcilePodReadiness(pod([GATE1], shown(notReady, [])))).toBe(false);
    expect(needToReconcilePodReadiness(pod([GATE1], shown(cond('Ready', 'True'), [cond(GATE1, 'True')])))).toBe(false);
    expect(needToReconcilePodReadiness(pod([], shown(notReady, [cond(GATE1, 'True')])))).toBe(false);
    expect(needToReconcilePodReadiness(pod([GATE1], { phase: 'Pending', conditions: [cond(GATE1, 'True')] }))).toBe(false);
  });
});

describe('sidecars in the conditions', () => {
  const withSidecar: Pod = {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
    spec: {
      initContainers: [{ name: 'setup', image: 'busybox' }, { name: 'proxy', image: 'busybox', restartPolicy: 'Always' }],
      containers: [{ name: 'main', image: 'busybox' }],
    },
  };
  const status = (name: string, over: Partial<ContainerStatus>): ContainerStatus => ({ name, ready: false, restartCount: 0, image: 'busybox', imageID: '', ...over });
  const statuses = (proxy: Partial<ContainerStatus>): ContainerStatus[] => [
    status('setup', { ready: true, state: { terminated: { exitCode: 0 } } }),
    status('proxy', { state: { running: {} }, ...proxy }),
    status('main', { ready: true, started: true, state: { running: {} } }),
  ];

  it('keeps ContainersReady and Ready False while a sidecar is not ready, naming it first', () => {
    expect(containersReadyCondition(withSidecar, statuses({ started: true, ready: false }), 'Running'))
      .toEqual({ type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [proxy]' });
    expect(podReadyCondition(withSidecar, [], statuses({ started: true, ready: false }), 'Running')).toMatchObject({ status: 'False' });
    expect(containersReadyCondition(withSidecar, statuses({ started: true, ready: true }), 'Running')).toEqual({ type: 'ContainersReady', status: 'True' });
  });

  it('counts a sidecar as initialized once started, ready or not', () => {
    const pending = statuses({ started: false });
    const notStarted = [pending[0]!, pending[1]!];
    expect(podInitializedCondition(withSidecar, notStarted, 'Pending'))
      .toEqual({ type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: 'containers with incomplete status: [proxy]' });
    const started = statuses({ started: true, ready: false });
    expect(podInitializedCondition(withSidecar, [started[0]!, started[1]!], 'Pending')).toEqual({ type: 'Initialized', status: 'True' });
  });
});
