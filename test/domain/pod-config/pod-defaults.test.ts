import { describe, expect, it } from 'vitest';
import { applyPodDefaults } from '../../../src/domain/pod-config/pod-defaults.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const podWith = (container: Partial<Container>, spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: 'p', uid: '' },
  spec: { containers: [{ name: 'c', image: 'busybox:1.36', ...container }], ...spec },
});

const firstContainer = (pod: Pod): Container => pod.spec.containers[0]!;

describe('applyPodDefaults', () => {
  it('fills the pod spec defaults the API server applies', () => {
    const { spec } = applyPodDefaults(podWith({}));
    expect(spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      securityContext: {},
    });
  });

  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['registry.example:5000/app', 'Always'],
    ['registry.example:5000/app:v1', 'IfNotPresent'],
    ['busybox@sha256:' + 'a'.repeat(64), 'IfNotPresent'],
  ])('defaults imagePullPolicy of %s to %s', (image, policy) => {
    expect(firstContainer(applyPodDefaults(podWith({ image }))).imagePullPolicy).toBe(policy);
  });

  it('fills container, port, probe and handler defaults', () => {
    const pod = applyPodDefaults(
      podWith({
        ports: [{ containerPort: 80 }],
        livenessProbe: { httpGet: { port: 80 } },
        readinessProbe: { exec: { command: ['true'] }, periodSeconds: 5 },
        lifecycle: { preStop: { httpGet: { port: 80 } } },
        env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
      }),
    );
    const c = firstContainer(pod);
    expect(c.terminationMessagePath).toBe('/dev/termination-log');
    expect(c.terminationMessagePolicy).toBe('File');
    expect(c.ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(c.livenessProbe).toEqual({ httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(c.readinessProbe?.periodSeconds).toBe(5);
    expect(c.lifecycle?.preStop?.httpGet).toEqual({ port: 80, path: '/', scheme: 'HTTP' });
    expect(c.env?.[0]?.valueFrom?.fieldRef?.apiVersion).toBe('v1');
  });

  it('requests the limits when no request is given, keeping explicit requests', () => {
    const pod = applyPodDefaults(podWith({ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }));
    expect(firstContainer(pod).resources?.requests).toEqual({ cpu: '500m', memory: '1Gi' });
  });

  it('makes container ports host ports on the host network', () => {
    const pod = applyPodDefaults(podWith({ ports: [{ containerPort: 9100 }] }, { hostNetwork: true }));
    expect(firstContainer(pod).ports?.[0]?.hostPort).toBe(9100);
  });

  it('gives a volume without a source an emptyDir', () => {
    const pod = applyPodDefaults(podWith({}, { volumes: [{ name: 'scratch' }, { name: 'conf', hostPath: { path: '/etc' } }] }));
    expect(pod.spec.volumes).toEqual([{ name: 'scratch', emptyDir: {} }, { name: 'conf', hostPath: { path: '/etc' } }]);
  });

  it('never overwrites a value that is set, and leaves its input alone', () => {
    const input = podWith({ imagePullPolicy: 'Never', terminationMessagePolicy: 'FallbackToLogsOnError' }, { restartPolicy: 'Never', terminationGracePeriodSeconds: 0 });
    const before = structuredClone(input);
    const pod = applyPodDefaults(input);
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(pod.spec.terminationGracePeriodSeconds).toBe(0);
    expect(firstContainer(pod).imagePullPolicy).toBe('Never');
    expect(firstContainer(pod).terminationMessagePolicy).toBe('FallbackToLogsOnError');
    expect(input).toEqual(before);
  });

  it('defaults init containers too', () => {
    const pod = applyPodDefaults({ ...podWith({}), spec: { ...podWith({}).spec, initContainers: [{ name: 'init', image: 'busybox' }] } });
    expect(pod.spec.initContainers?.[0]?.imagePullPolicy).toBe('Always');
  });
});
