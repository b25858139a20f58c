import { describe, expect, it } from 'vitest';
import { EventCache, eventKey, makeEvent, repeatPatch, type EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';

const source = { component: 'kubelet', host: 'node-a' };
const request: EventRequest = { object: { kind: 'Pod', namespace: 'ns', name: 'web', uid: 'u1' }, type: 'Normal', reason: 'Pulled', message: 'pulled' };

describe('event aggregation', () => {
  it('makes an event named after the object and the time in hex nanoseconds, count 1', () => {
    const event = makeEvent(source, request, 1_700_000_000_123, 0);
    expect(event.metadata).toEqual({ name: `web.${(1_700_000_000_123n * 1_000_000n).toString(16)}`, namespace: 'ns' });
    expect(event).toMatchObject({ count: 1, type: 'Normal', reason: 'Pulled', source, reportingComponent: 'kubelet', reportingInstance: 'node-a', firstTimestamp: '2023-11-14T22:13:20Z' });
  });

  it('puts events of cluster-scoped objects in default', () => {
    expect(makeEvent(source, { ...request, object: { kind: 'Node', name: 'node-a' } }, 0, 0).metadata.namespace).toBe('default');
  });

  it('keys repeats by object, type, reason and message', () => {
    expect(eventKey(source, request)).toBe(eventKey(source, { ...request }));
    expect(eventKey(source, request)).not.toBe(eventKey(source, { ...request, message: 'other' }));
    expect(eventKey(source, request)).not.toBe(eventKey(source, { ...request, object: { ...request.object, uid: 'u2' } }));
  });

  it('patches a repeat with count + 1 and a new lastTimestamp', () => {
    expect(repeatPatch({ namespace: 'ns', name: 'web.0', count: 1 }, 5_000, 'pulled')).toEqual({ count: 2, lastTimestamp: '1970-01-01T00:00:05Z', message: 'pulled' });
  });

  it('forgets the least recently used key beyond its capacity', () => {
    const cache = new EventCache(2);
    const e = { namespace: 'ns', name: 'web.1', count: 1 };
    cache.set('a', e);
    cache.set('b', e);
    cache.get('a');
    cache.set('c', e);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.size).toBe(2);
  });
});
