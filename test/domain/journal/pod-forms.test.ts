import { describe, expect, it } from 'vitest';
import { toJournalPayload } from '../../../src/domain/journal/payload.js';
import { REDACTED, redact } from '../../../src/domain/journal/redact.js';

/** `value` behind a proxy that counts the listings of its keys: each walk over it lists them (a look at its shape does not). */
function counted<T extends object>(value: T): { value: T; reads: () => number } {
  let reads = 0;
  const value2 = new Proxy(value, {
    ownKeys(target) {
      reads += 1;
      return Reflect.ownKeys(target);
    },
  });
  return { value: value2, reads: () => reads };
}

const pod = () => ({
  metadata: { name: 'web', namespace: 'default', uid: 'u1' },
  spec: {
    containers: [{ name: 'app', image: 'busybox', env: [{ name: 'PASSWORD', value: 'hunter2', valueFrom: { secretKeyRef: { name: 's', key: 'p' } } }] }],
    volumes: [{ name: 'creds', secret: { secretName: 's' } }],
  },
});

describe('the journal form of a pod, kept by identity', () => {
  it('walks a pod once: given again, at its depth or a shallower one, it answers the same form without reading it', () => {
    const { value, reads } = counted(pod());
    const first = toJournalPayload({ pods: [value] }) as { pods: unknown[] };
    const readsAfterFirst = reads();
    expect(readsAfterFirst).toBeGreaterThan(0);
    const again = toJournalPayload({ pods: [value] }) as { pods: unknown[] };
    const shallower = toJournalPayload({ pod: value }) as { pod: unknown };
    expect(reads()).toBe(readsAfterFirst);
    expect(again.pods[0]).toBe(first.pods[0]);
    expect(shallower.pod).toBe(first.pods[0]);
  });

  it('walks a pod again when it is met deeper than before', () => {
    const { value, reads } = counted(pod());
    toJournalPayload({ pod: value });
    const readsAfterFirst = reads();
    toJournalPayload({ input: { pods: [value] } });
    expect(reads()).toBeGreaterThan(readsAfterFirst);
  });

  it('keeps no form the depth guard cut, and cuts the same way each time', () => {
    let deep: Record<string, unknown> = { end: true };
    for (let i = 0; i < 70; i++) deep = { next: deep };
    const { value, reads } = counted({ ...pod(), spec: { ...pod().spec, deep } });
    const first = JSON.stringify(toJournalPayload({ pod: value }));
    const readsAfterFirst = reads();
    expect(first).toContain('[depth]');
    expect(JSON.stringify(toJournalPayload({ pod: value }))).toBe(first);
    expect(reads()).toBeGreaterThan(readsAfterFirst);
  });

  it('redacts a pod once: given again, it answers the same redacted form without reading it', () => {
    const { value, reads } = counted(pod());
    const first = redact({ pods: [value] }) as { pods: { spec: { containers: { env: { value: string }[] }[] } }[] };
    expect(first.pods[0]!.spec.containers[0]!.env[0]!.value).toBe(REDACTED);
    const readsAfterFirst = reads();
    const again = redact({ input: { pod: value } }) as { input: { pod: unknown } };
    expect(reads()).toBe(readsAfterFirst);
    expect(again.input.pod).toBe(first.pods[0]);
  });
});
