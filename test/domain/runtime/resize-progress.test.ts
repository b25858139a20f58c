import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { desiredResourceAmounts } from '../../../src/domain/runtime/actuated-resources.js';
import type { RuntimeContainerState, RuntimePodStatus } from '../../../src/domain/runtime/pod-status.js';
import { isPodResizeInProgress } from '../../../src/domain/runtime/resize-progress.js';

const res = (cpu: string) => ({ requests: { cpu }, limits: { cpu } });
const app: Container = { name: 'app', image: 'app:1', resources: res('500m') };
const proxy: Container = { name: 'proxy', image: 'proxy:1', restartPolicy: 'Always', resources: res('100m') };
const setup: Container = { name: 'setup', image: 'setup:1', resources: res('1') };

const pod = (containers: Container[], inits: Container[] = []): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers, initContainers: inits } });

function status(states: Record<string, RuntimeContainerState>): RuntimePodStatus {
  return {
    uid: 'u', name: 'p', namespace: 'ns', ips: [], sandboxes: [],
    containers: Object.entries(states).map(([name, state]) => ({
      id: `${name}-id`, name, state, createdAt: '1', startedAt: '1', finishedAt: '0', exitCode: 0, reason: '', message: '', image: '', imageRef: '', hash: 0, restartCount: 0, sandboxId: 'sb',
    })),
  };
}

describe('isPodResizeInProgress', () => {
  const before = pod([app], [setup, proxy]);
  const actuated = { app: desiredResourceAmounts(before, app), proxy: desiredResourceAmounts(before, proxy) };

  it('is false when every running container runs with its allocated amounts', () => {
    expect(isPodResizeInProgress(before, status({ app: 'running', proxy: 'running', setup: 'exited' }), actuated)).toBe(false);
  });

  it('is true while a running container or sidecar runs with other amounts', () => {
    expect(isPodResizeInProgress(pod([{ ...app, resources: res('1') }], [setup, proxy]), status({ app: 'running', proxy: 'running' }), actuated)).toBe(true);
    expect(isPodResizeInProgress(pod([app], [setup, { ...proxy, resources: res('200m') }]), status({ app: 'running', proxy: 'running' }), actuated)).toBe(true);
  });

  it('ignores containers not running and ordinary init containers', () => {
    expect(isPodResizeInProgress(pod([{ ...app, resources: res('1') }], [setup, proxy]), status({ app: 'exited', proxy: 'running' }), actuated)).toBe(false);
    expect(isPodResizeInProgress(pod([app], [{ ...setup, resources: res('2') }, proxy]), status({ app: 'running', proxy: 'running', setup: 'running' }), actuated)).toBe(false);
  });

  it('counts a running container without actuated amounts at zero', () => {
    expect(isPodResizeInProgress(before, status({ app: 'running' }), {})).toBe(true);
    expect(isPodResizeInProgress(pod([{ name: 'bare', image: 'b' }]), status({ bare: 'running' }), undefined)).toBe(false);
  });
});
