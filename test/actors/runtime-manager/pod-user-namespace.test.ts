/**
 * Pod user namespace ranges across a kubelet restart: the ranges the runtime's sandboxes report are
 * read back before the first allocation, so a running pod keeps its range and no new pod is given
 * it; the runtime is asked only once, and again after a failed read.
 */
import { describe, expect, it } from 'vitest';
import { createUserNamespaces, rangesInRuntime, type RangeInUse } from '../../../src/actors/runtime-manager/pod-user-namespace.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { UserNamespace__Output } from '../../../src/generated/runtime/v1/UserNamespace.js';
import type { PodSandbox, PodSandboxStatus, PodSandboxStatusResponse } from '../../../src/ports/cri.js';

const pod = (uid: string): Pod => ({ metadata: { name: uid, namespace: 'ns', uid }, spec: { containers: [], hostUsers: false } });
const supported = async () => [{ name: '', userNamespaces: true }];
const hostIdOf = (userns: { uids?: { host_id: number }[] } | undefined) => userns?.uids?.[0]?.host_id;

describe('createUserNamespaces', () => {
  it('keeps a running pod\'s range and hands the next free one to a new pod', async () => {
    let reads = 0;
    const inUse: RangeInUse[] = [{ podUid: 'running', hostId: 65536 }, { podUid: 'other', hostId: 196608 }];
    const userns = createUserNamespaces({ gateOn: true, runtimeHandlers: supported, rangesInUse: async () => (reads++, inUse) });
    expect(hostIdOf(await userns.forPod(pod('running'), ''))).toBe(65536);
    expect(hostIdOf(await userns.forPod(pod('new'), ''))).toBe(131072);
    expect(hostIdOf(await userns.forPod(pod('newer'), ''))).toBe(262144);
    expect(reads).toBe(1);
  });

  it('asks the runtime again after a failed read, allocating nothing meanwhile', async () => {
    let fail = true;
    const userns = createUserNamespaces({
      gateOn: true, runtimeHandlers: supported,
      rangesInUse: async () => { if (fail) throw new Error('runtime down'); return [{ podUid: 'running', hostId: 65536 }]; },
    });
    await expect(userns.forPod(pod('new'), '')).rejects.toThrow('runtime down');
    fail = false;
    expect(hostIdOf(await userns.forPod(pod('new'), ''))).toBe(131072);
  });
});

describe('rangesInRuntime', () => {
  it('reads the pod user namespaces the sandboxes report, skipping host ones and sandboxes gone meanwhile', async () => {
    const sandbox = (id: string, uid: string) => ({ id, metadata: { name: id, uid, namespace: 'ns', attempt: 0 } }) as PodSandbox;
    const status = (id: string, uid: string, userns: UserNamespace__Output): PodSandboxStatus => ({
      ...sandbox(id, uid), state: 'SANDBOX_READY', created_at: '1', labels: {}, annotations: {}, runtime_handler: '', network: null,
      linux: { namespaces: { options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD', target_id: '', userns_options: userns } } },
    });
    const statusOf: Record<string, PodSandboxStatus> = {
      a: status('a', 'uid-a', { mode: 'POD', uids: [{ host_id: 65536, container_id: 0, length: 65536 }], gids: [] }),
      b: status('b', 'uid-b', { mode: 'NODE', uids: [], gids: [] }),
    };
    const runtime = {
      listPodSandbox: async () => [sandbox('a', 'uid-a'), sandbox('b', 'uid-b'), sandbox('gone', 'uid-gone')],
      podSandboxStatus: async (id: string) => {
        if (!statusOf[id]) throw new Error('NotFound');
        return { status: statusOf[id], info: {}, containers_statuses: [], timestamp: '0' } as PodSandboxStatusResponse;
      },
    };
    expect(await rangesInRuntime(runtime)).toEqual([{ podUid: 'uid-a', hostId: 65536 }]);
  });
});
