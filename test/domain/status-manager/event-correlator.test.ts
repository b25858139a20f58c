import { describe, expect, it } from 'vitest';
import { eventKey, type EventRequest } from '../../../src/domain/status-manager/event-aggregation.js';
import { COMBINED_PREFIX, EventCorrelator, SPAM_BURST, SPAM_REFILL_MS } from '../../../src/domain/status-manager/event-correlator.js';

const source = { component: 'kubelet', host: 'node-a' };
const pod = { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'web', uid: 'u1' };
const event = (reason: string, message: string, name = 'web'): EventRequest => ({ object: { ...pod, name, fieldPath: 'spec.containers{c}' }, type: 'Warning', reason, message });

describe('EventCorrelator', () => {
  it('lets a source record 25 events about one object, then one more per 5 minutes', () => {
    const c = new EventCorrelator(source);
    for (let i = 0; i < SPAM_BURST; i++) expect(c.correlate(event(`R${i % 3}`, 'm'), 0).skip).toBe(false);
    expect(c.correlate(event('Other', 'm'), 1_000).skip).toBe(true);
    // Another object has its own budget.
    expect(c.correlate(event('R0', 'm', 'db'), 1_000).skip).toBe(false);
    expect(c.correlate(event('R0', 'm'), SPAM_REFILL_MS).skip).toBe(false);
    expect(c.correlate(event('R0', 'm'), SPAM_REFILL_MS + 1_000).skip).toBe(true);
  });

  it('keys an event by itself until 10 similar ones (message aside) were seen within 10 minutes, then combines them', () => {
    const c = new EventCorrelator(source);
    const keys: string[] = [];
    for (let i = 0; i < 9; i++) {
      const r = c.correlate(event('Unhealthy', `probe failed ${i}`), i * 1_000);
      if (r.skip) throw new Error('skipped');
      expect(r.request.message).toBe(`probe failed ${i}`);
      expect(r.key).toBe(eventKey(source, event('Unhealthy', `probe failed ${i}`)));
      keys.push(r.key);
    }
    const tenth = c.correlate(event('Unhealthy', 'probe failed 9'), 9_000);
    const eleventh = c.correlate(event('Unhealthy', 'probe failed 10'), 10_000);
    if (tenth.skip || eleventh.skip) throw new Error('skipped');
    expect(tenth.request.message).toBe(`${COMBINED_PREFIX}probe failed 9`);
    expect(eleventh.request.message).toBe(`${COMBINED_PREFIX}probe failed 10`);
    expect(eleventh.key).toBe(tenth.key);
    expect(keys).not.toContain(tenth.key);
  });

  it('starts counting similar events afresh after 10 quiet minutes', () => {
    const c = new EventCorrelator(source);
    for (let i = 0; i < 9; i++) c.correlate(event('BackOff', `m${i}`), 0);
    const later = c.correlate(event('BackOff', 'm9'), 600_001);
    expect(later.skip === false && later.request.message).toBe('m9');
  });
});
