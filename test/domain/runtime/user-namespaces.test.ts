/**
 * A pod's user namespace against Go's GetOrCreateUserNamespaceMappings and
 * HandlerSupportsUserNamespaces: what is asked for with the gate on and off, which runtime answers
 * refuse it (containerd 1.6 reports no handlers), and the one 65,536-ID mapping per pod.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import {
  allocateHostId, FIRST_POD_HOST_ID, IDS_PER_POD, podUserNamespace, userNamespaceRequest, userNamespaceUnsupported,
} from '../../../src/domain/runtime/user-namespaces.js';

const pod = (hostUsers?: boolean): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [], ...(hostUsers === undefined ? {} : { hostUsers }) } });

describe('userNamespaceRequest', () => {
  it.each([
    { gate: true, hostUsers: undefined, want: { kind: 'node' } },
    { gate: true, hostUsers: true, want: { kind: 'node' } },
    { gate: true, hostUsers: false, want: { kind: 'pod' } },
    { gate: false, hostUsers: undefined, want: { kind: 'unset' } },
    { gate: false, hostUsers: true, want: { kind: 'refused', message: 'the feature gate "UserNamespacesSupport" is disabled: can\'t set spec.HostUsers' } },
    { gate: false, hostUsers: false, want: { kind: 'refused', message: 'the feature gate "UserNamespacesSupport" is disabled: can\'t set spec.HostUsers' } },
  ])('gate $gate, hostUsers $hostUsers → $want.kind', ({ gate, hostUsers, want }) => {
    expect(userNamespaceRequest(pod(hostUsers), gate)).toEqual(want);
  });
});

describe('userNamespaceUnsupported', () => {
  const supports = { name: '', userNamespaces: true };
  it.each([
    { handler: '', handlers: [supports], want: undefined },
    { handler: 'kata', handlers: [supports, { name: 'kata', userNamespaces: true }], want: undefined },
    { handler: '', handlers: [], want: 'the handler "" is not known: the runtime reports no runtime handlers, so no user namespace support' },
    { handler: '', handlers: [{ name: '', userNamespaces: false }], want: 'RuntimeClass handler "" does not support user namespaces' },
    { handler: 'kata', handlers: [supports], want: 'the handler "kata" is not known' },
  ])('handler "$handler" among $handlers.length handlers', ({ handler, handlers, want }) => {
    const got = userNamespaceUnsupported(handler, handlers);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toBe(`spec.hostUsers is false but the pod cannot get a user namespace of its own: ${want}`);
  });
});

describe('podUserNamespace', () => {
  it('maps container IDs from 0, 65,536 of them, users and groups alike', () => {
    expect(podUserNamespace(131_072)).toEqual({
      mode: 'POD',
      uids: [{ host_id: 131_072, container_id: 0, length: 65_536 }],
      gids: [{ host_id: 131_072, container_id: 0, length: 65_536 }],
    });
  });
});

describe('allocateHostId', () => {
  it.each([
    { taken: [], limit: 2 ** 32, want: FIRST_POD_HOST_ID },
    { taken: [FIRST_POD_HOST_ID], limit: 2 ** 32, want: FIRST_POD_HOST_ID + IDS_PER_POD },
    { taken: [FIRST_POD_HOST_ID + IDS_PER_POD], limit: 2 ** 32, want: FIRST_POD_HOST_ID },
    { taken: [FIRST_POD_HOST_ID], limit: FIRST_POD_HOST_ID + 2 * IDS_PER_POD, want: FIRST_POD_HOST_ID + IDS_PER_POD },
    { taken: [FIRST_POD_HOST_ID, FIRST_POD_HOST_ID + IDS_PER_POD], limit: FIRST_POD_HOST_ID + 2 * IDS_PER_POD, want: undefined },
  ])('the lowest free slot of $taken.length taken, below $limit', ({ taken, limit, want }) => {
    expect(allocateHostId(new Set(taken), limit)).toBe(want);
  });
});
