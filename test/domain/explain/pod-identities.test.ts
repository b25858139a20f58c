import { describe, expect, it } from 'vitest';
import { knownPods } from '../../../src/domain/explain/pod-identities.js';
import { pod, Records, UID } from './records.js';

describe('knownPods', () => {
  it('counts every record that holds a pod, one that repeats another\'s objects (a delivery its spawn) too', () => {
    const r = new Records();
    const spawn = r.admitted(10);
    const input = (spawn.payload as { input: object }).input;
    // The worker's own init: the very input object the spawn carried, as the reader puts it back.
    r.add(11, { actor: `pod:${UID}`, type: 'event', name: 'xstate.init', payload: { input } });
    expect(knownPods(r.all).get(UID)).toEqual({ uid: UID, namespace: 'default', name: 'web', lastSeq: 2 });
  });

  it('leaves out a mirror pod and reads a pod without a namespace as the default one\'s', () => {
    const mirror = pod('web', 'default', 'mirror');
    (mirror.metadata as Record<string, unknown>).annotations = { 'kubernetes.io/config.mirror': 'x' };
    const bare = pod('db', undefined, 'bare');
    delete (bare.metadata as Partial<typeof bare.metadata>).namespace;
    const r = new Records();
    r.add(0, { actor: 'podConfig', type: 'event', name: 'pod.source.snapshot', payload: { pods: [mirror, bare] } });
    expect([...knownPods(r.all).values()]).toEqual([{ uid: 'bare', namespace: 'default', name: 'db', lastSeq: 1 }]);
  });
});
