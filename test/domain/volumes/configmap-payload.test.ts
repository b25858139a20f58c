import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import { configMapPayload } from '../../../src/domain/volumes/configmap-payload.js';
import type { KeyedData, Payload } from '../../../src/domain/volumes/sources.js';

const configMap: KeyedData = { data: { 'b.conf': Buffer.from('bee'), 'a.conf': Buffer.from('ay'), 'logo.png': Buffer.from([0, 1, 2]) } };

function thrown(fn: () => unknown): KubeletError {
  try { fn(); } catch (err) { if (err instanceof KubeletError) return err; throw err; }
  throw new Error('expected a KubeletError');
}

const view = (payload: Payload) => [...payload].map(([key, f]) => [key, f.path, f.content.toString('hex'), f.mode.toString(8)]);

describe('configMapPayload', () => {
  it('projects every key (data and binaryData alike) at mode 0644 when there are no items', () => {
    const payload = configMapPayload({ name: 'cm' }, configMap);
    expect(view(payload)).toEqual([
      ['a.conf', 'a.conf', Buffer.from('ay').toString('hex'), '644'],
      ['b.conf', 'b.conf', Buffer.from('bee').toString('hex'), '644'],
      ['logo.png', 'logo.png', '000102', '644'],
    ]);
  });

  it('uses defaultMode for every file', () => {
    const payload = configMapPayload({ name: 'cm', defaultMode: 0o400 }, configMap);
    expect([...payload.values()].map((f) => f.mode)).toEqual([0o400, 0o400, 0o400]);
  });

  it('projects only the items, at their paths, with a per-item mode over defaultMode', () => {
    const payload = configMapPayload({
      name: 'cm', defaultMode: 0o440,
      items: [{ key: 'a.conf', path: 'conf/a' }, { key: 'logo.png', path: 'img//logo.png', mode: 0o600 }],
    }, configMap);
    expect(view(payload)).toEqual([
      ['conf/a', 'conf/a', Buffer.from('ay').toString('hex'), '440'],
      ['img/logo.png', 'img/logo.png', '000102', '600'],
    ]);
  });

  it('fails with the managers\' not-found error when the object is missing and not optional', () => {
    const err = thrown(() => configMapPayload({ name: 'cm' }, undefined));
    expect(err.code).toBe('KLT_ERR_API_NOT_FOUND');
    expect(err.message).toBe('configmap "cm" not found');
    expect(err.retryable).toBe(true);
  });

  it('is empty when the object is missing and optional, with or without items', () => {
    expect(configMapPayload({ name: 'cm', optional: true }, undefined).size).toBe(0);
    expect(configMapPayload({ name: 'cm', optional: true, items: [{ key: 'a', path: 'a' }] }, undefined).size).toBe(0);
  });

  it('fails with Go\'s error when an item\'s key is missing and not optional', () => {
    const err = thrown(() => configMapPayload({ name: 'cm', items: [{ key: 'nope', path: 'x' }] }, configMap));
    expect(err.code).toBe('KLT_ERR_API_NOT_FOUND');
    expect(err.message).toBe('configmap references non-existent config key: nope');
  });

  it('skips an item whose key is missing when optional', () => {
    const payload = configMapPayload({ name: 'cm', optional: true, items: [{ key: 'nope', path: 'x' }, { key: 'a.conf', path: 'a' }] }, configMap);
    expect([...payload.keys()]).toEqual(['a']);
  });

  it.each([
    ['/abs', 'invalid path: must be relative path: /abs'],
    ['a/../../etc', "invalid path: must not contain '..': a/../../etc"],
    ['', 'invalid path: must not be empty: ""'],
    ['..data', "invalid path: must not start with '..': ..data"],
  ])('refuses the item path %j with Go\'s message', (path, message) => {
    const err = thrown(() => configMapPayload({ name: 'cm', items: [{ key: 'a.conf', path }] }, configMap));
    expect(err.code).toBe('KLT_ERR_POD_SPEC_INVALID');
    expect(err.message).toBe(message);
  });

  it('does not read a key from the object\'s prototype', () => {
    const err = thrown(() => configMapPayload({ name: 'cm', items: [{ key: 'toString', path: 'x' }] }, configMap));
    expect(err.message).toBe('configmap references non-existent config key: toString');
  });
});
