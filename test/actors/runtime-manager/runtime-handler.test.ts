/**
 * The runtime handler of a pod against Go's LookupRuntimeHandler: none without runtimeClassName, the
 * class's handler, and the lister's NotFound text for a class that does not exist (or before the
 * first list); standalone, a class named is refused rather than ignored.
 */
import { describe, expect, it } from 'vitest';
import { runtimeHandlerFor } from '../../../src/actors/runtime-manager/runtime-handler.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { RuntimeClassLister } from '../../../src/ports/runtime-classes.js';

const pod = (runtimeClassName?: string): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [], ...(runtimeClassName === undefined ? {} : { runtimeClassName }) } });
const classes = (synced: boolean, byName: Record<string, string>): RuntimeClassLister => ({ handlerOf: (name) => byName[name], hasSynced: () => synced });
const listed = classes(true, { gvisor: 'runsc', plain: '' });

describe('runtimeHandlerFor', () => {
  it.each([
    { name: 'no class', pod: pod(), lister: listed, want: '' },
    { name: 'an empty class name', pod: pod(''), lister: listed, want: '' },
    { name: 'no class, standalone', pod: pod(), lister: undefined, want: '' },
    { name: 'a class', pod: pod('gvisor'), lister: listed, want: 'runsc' },
    { name: 'a class naming the default handler', pod: pod('plain'), lister: listed, want: '' },
  ])('$name → "$want"', ({ pod, lister, want }) => {
    expect(runtimeHandlerFor(pod, lister)).toBe(want);
  });

  it.each([
    { name: 'a class that does not exist', pod: pod('nosuch'), lister: listed, code: 'KLT_ERR_API_NOT_FOUND', message: 'runtimeclass.node.k8s.io "nosuch" not found' },
    { name: 'a class before the first list', pod: pod('gvisor'), lister: classes(false, {}), code: 'KLT_ERR_API_NOT_FOUND', message: 'runtimeclass.node.k8s.io "gvisor" not found (the RuntimeClasses have not been listed yet)' },
    { name: 'a class, standalone', pod: pod('gvisor'), lister: undefined, code: 'KLT_ERR_POD_SPEC_INVALID', message: 'RuntimeClass "gvisor" cannot be looked up without an API server; refusing to run the pod on the default runtime handler' },
  ])('$name is refused', ({ pod, lister, code, message }) => {
    expect(() => runtimeHandlerFor(pod, lister)).toThrow(expect.objectContaining({ code, message }));
  });
});
