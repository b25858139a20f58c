import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import { secretPayload } from '../../../src/domain/volumes/secret-payload.js';
import type { KeyedData } from '../../../src/domain/volumes/sources.js';

const secret: KeyedData = { data: { password: Buffer.from('s3cret'), 'tls.key': Buffer.from('KEY') } };

function thrown(fn: () => unknown): KubeletError {
  try { fn(); } catch (err) { if (err instanceof KubeletError) return err; throw err; }
  throw new Error('expected a KubeletError');
}

describe('secretPayload', () => {
  it('projects every key at mode 0644 when there are no items', () => {
    const payload = secretPayload({ secretName: 's' }, secret);
    expect([...payload].map(([p, f]) => [p, f.content.toString(), f.mode])).toEqual([['password', 's3cret', 0o644], ['tls.key', 'KEY', 0o644]]);
  });

  it('projects only the items with their modes', () => {
    const payload = secretPayload({ secretName: 's', defaultMode: 0o400, items: [{ key: 'tls.key', path: 'tls/key', mode: 0o600 }, { key: 'password', path: 'pw' }] }, secret);
    expect([...payload].map(([p, f]) => [p, f.mode])).toEqual([['tls/key', 0o600], ['pw', 0o400]]);
  });

  it('fails with secret "NAME" not found when the object is missing and not optional', () => {
    const err = thrown(() => secretPayload({ secretName: 's' }, undefined));
    expect([err.code, err.message]).toEqual(['KLT_ERR_API_NOT_FOUND', 'secret "s" not found']);
  });

  it('is empty when the object is missing and optional', () => {
    expect(secretPayload({ secretName: 's', optional: true }, undefined).size).toBe(0);
  });

  it('fails with Go\'s secret wording when an item\'s key is missing', () => {
    const err = thrown(() => secretPayload({ secretName: 's', items: [{ key: 'user', path: 'u' }] }, secret));
    expect([err.code, err.message]).toEqual(['KLT_ERR_API_NOT_FOUND', 'references non-existent secret key: user']);
  });

  it('skips the missing key when optional', () => {
    expect(secretPayload({ secretName: 's', optional: true, items: [{ key: 'user', path: 'u' }] }, secret).size).toBe(0);
  });

  it('refuses an absolute item path', () => {
    const err = thrown(() => secretPayload({ secretName: 's', items: [{ key: 'password', path: '/pw' }] }, secret));
    expect([err.code, err.message]).toEqual(['KLT_ERR_POD_SPEC_INVALID', 'invalid path: must be relative path: /pw']);
  });
});
