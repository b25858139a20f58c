import { describe, expect, it } from 'vitest';
import { readPodStatus } from '../../../src/actors/runtime-manager/pod-status-reader.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { ContainerConfig, PodSandboxConfig } from '../../../src/ports/cri.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const labels = { 'io.kubernetes.pod.uid': 'u1', 'io.kubernetes.pod.name': 'p', 'io.kubernetes.pod.namespace': 'ns' };
const sandboxConfig = (attempt: number): PodSandboxConfig => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1', attempt }, labels });
const containerConfig = (name: string, annotations: Record<string, string> = {}): ContainerConfig => ({
  metadata: { name, attempt: 0 }, image: { image: 'app:1' }, labels: { ...labels, 'io.kubernetes.container.name': name }, annotations,
});

describe('readPodStatus', () => {
  it('lists only the pod\'s sandboxes and containers, newest first, with annotations read back', async () => {
    const cri = new FakeCri();
    cri.addImage('app:1');
    const old = await cri.runtime.runPodSandbox(sandboxConfig(0));
    await cri.runtime.stopPodSandbox(old);
    const current = await cri.runtime.runPodSandbox(sandboxConfig(1));
    await cri.runtime.runPodSandbox({ metadata: { name: 'q', namespace: 'ns', uid: 'u2', attempt: 0 }, labels: { 'io.kubernetes.pod.uid': 'u2' } });
    const a = await cri.runtime.createContainer(current, containerConfig('a', { 'io.kubernetes.container.hash': 'ff', 'io.kubernetes.container.restartCount': '4' }), sandboxConfig(1));
    await cri.runtime.startContainer(a);

    const status = await readPodStatus(cri, 'u1');
    expect(status.sandboxes.map((s) => [s.id, s.attempt, s.ready])).toEqual([[current, 1, true], [old, 0, false]]);
    expect(status.ips).toEqual([expect.stringMatching(/^10\.88\./)]);
    expect(status.containers).toEqual([expect.objectContaining({ id: a, name: 'a', state: 'running', hash: 255, restartCount: 4, sandboxId: current })]);
    expect(status).toMatchObject({ name: 'p', namespace: 'ns' });
  });

  it('has no pod IPs when the newest sandbox is not ready', async () => {
    const cri = new FakeCri();
    const id = await cri.runtime.runPodSandbox(sandboxConfig(0));
    cri.failSandbox(id);
    expect((await readPodStatus(cri, 'u1')).ips).toEqual([]);
  });

  it('skips a container removed between the list and its status, but passes other errors on', async () => {
    const cri = new FakeCri();
    cri.addImage('app:1');
    const sb = await cri.runtime.runPodSandbox(sandboxConfig(0));
    await cri.runtime.createContainer(sb, containerConfig('a'), sandboxConfig(0));
    cri.failNext('containerStatus', new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'gone'));
    expect((await readPodStatus(cri, 'u1')).containers).toEqual([]);
    cri.failNext('containerStatus', new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'connection refused'));
    await expect(readPodStatus(cri, 'u1')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });
});
