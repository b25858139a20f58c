import { describe, expect, it } from 'vitest';
import { redact, REDACTED } from '../../../src/domain/journal/redact.js';
import { redactArgv } from '../../../src/domain/journal/redact-argv.js';
import { toJournalPayload } from '../../../src/domain/journal/payload.js';

const SECRET = 's3cr3t-VALUE-123';

describe('redact', () => {
  it.each([
    ['a bearer token', { user: { token: SECRET } }],
    ['a kubeconfig client key', { users: [{ user: { 'client-key-data': SECRET } }] }],
    ['an Authorization header', { headers: { Authorization: `Bearer ${SECRET}` } }],
    ['a password', { auth: { password: SECRET } }],
    ['staticPodURLHeader values', { config: { staticPodURLHeader: { 'X-Auth': [SECRET] } } }],
    ['a Secret object\'s data', { object: { kind: 'Secret', data: { key: SECRET }, stringData: { other: SECRET } } }],
    ['an env value from a secretKeyRef', { spec: { containers: [{ env: [{ name: 'PW', value: SECRET, valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] } }],
    ['CRI container env values', { config: { envs: [{ key: 'PW', value: SECRET }] } }],
    ['CRI env values as bytes', { config: { envs: [{ key: 'PW', value: Buffer.from(SECRET) }] } }],
  ])('keeps %s out of the record', (_what, value) => {
    const out = JSON.stringify(redact(toJournalPayload(value)));
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(out).toContain(REDACTED);
  });

  it('keeps what is not secret: names, keys, literal env values', () => {
    const value = { spec: { containers: [{ name: 'app', env: [{ name: 'MODE', value: 'fast' }] }] }, config: { envs: [{ key: 'PW', value: 'x' }] } };
    const out = redact(value) as typeof value;
    expect(out.spec.containers[0]!.env[0]).toEqual({ name: 'MODE', value: 'fast' });
    expect(out.config.envs[0]!.key).toBe('PW');
  });

  it('keeps a pod\'s secret volume and projection (names and modes) and still masks a value under `secret`', () => {
    const volumes = [
      { name: 'creds', secret: { secretName: 'creds', defaultMode: 256, items: [{ key: 'password', path: 'pw' }] } },
      { name: 'all', projected: { sources: [{ secret: { name: 'creds', optional: true } }] } },
    ];
    expect(redact({ spec: { volumes } })).toEqual({ spec: { volumes } });
    expect(redact({ config: { secret: SECRET } })).toEqual({ config: { secret: REDACTED } });
  });

  it('returns the very same object when there is nothing to redact', () => {
    const value = { podUid: 'u1', reason: 'pleg', nested: { list: [1, 'a', null] } };
    expect(redact(value)).toBe(value);
    expect(toJournalPayload(value)).toBe(value);
  });

  it('returns the very same object when a container\'s env holds no secret, or its secrets are masked already', () => {
    const container = { name: 'app', env: [{ name: 'MODE', value: 'fast' }, { name: 'PW', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] };
    const config = { envs: [{ key: 'PW', value: REDACTED }], Labels: { Team: 'a' } };
    const value = { event: { container, config }, Authorization: REDACTED };
    expect(redact(value)).toBe(value);
  });

  it('masks a credential key in any case, the same each time', () => {
    for (let i = 0; i < 2; i++) expect(redact({ Headers: { AUTHORIZATION: SECRET, Accept: 'json' } })).toEqual({ Headers: { AUTHORIZATION: REDACTED, Accept: 'json' } });
  });

  it('never changes its input', () => {
    const value = { user: { token: SECRET } };
    redact(value);
    expect(value.user.token).toBe(SECRET);
  });
});

describe('toJournalPayload', () => {
  it('turns errors, buffers, dates, maps and cycles into JSON', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const out = toJournalPayload({
      err: Object.assign(new Error('boom'), { code: 'KLT_ERR_CRI_UNAVAILABLE' }),
      buf: Buffer.from('hi'),
      when: new Date(0),
      map: new Map([['k', 1]]),
      fn: () => 1,
      cyclic,
      big: 10n,
      nan: Number.NaN,
    });
    expect(out).toEqual({
      err: { code: 'KLT_ERR_INTERNAL', message: 'boom', retryable: false },
      buf: { base64: 'aGk=' },
      when: '1970-01-01T00:00:00.000Z',
      map: { k: 1 },
      cyclic: { a: 1, self: '[cycle]' },
      big: '10',
      nan: 'NaN',
    });
  });

  it('keeps a deeply nested input whole: the kube-api-access volume inside a pod source snapshot', () => {
    const fieldRef = { apiVersion: 'v1', fieldPath: 'metadata.namespace' };
    const snapshot = { source: 'api', pods: [{ spec: { volumes: [{ projected: { sources: [{ downwardAPI: { items: [{ path: 'namespace', fieldRef }] } }] } }] } }] };
    expect(toJournalPayload(snapshot)).toBe(snapshot);
    expect(toJournalPayload({ wrapped: { event: snapshot } })).toEqual({ wrapped: { event: snapshot } });
  });

  it.each([
    ['--flag=value', ['--manifest-url=http://m', `--manifest-url-header=Authorization:Bearer ${SECRET},X-Other:${SECRET}`], ['--manifest-url=http://m', '--manifest-url-header=Authorization:<redacted>,X-Other:<redacted>']],
    ['--flag value', ['--manifest-url-header', `Authorization:Bearer ${SECRET}`, '--v=2'], ['--manifest-url-header', 'Authorization:<redacted>', '--v=2']],
    ['underscores', [`--manifest_url_header=X:${SECRET}`], ['--manifest_url_header=X:<redacted>']],
    ['a pair without a colon', [`--manifest-url-header=${SECRET}`], ['--manifest-url-header=<redacted>']],
  ])('masks --manifest-url-header values in a supervisor input argv, given as %s (#14)', (_form, argv, expected) => {
    const out = redact({ input: { argv, stopTimeoutMs: 1 } }) as { input: { argv: string[] } };
    expect(out.input.argv).toEqual(expected);
    expect(JSON.stringify(out)).not.toContain(SECRET);
    // Replay redacts the logged (already redacted) input again: the same record.
    expect(redactArgv(out.input.argv, REDACTED)).toEqual(expected);
  });

  it('returns an argv without secret-bearing flags as is', () => {
    const input = { argv: ['--config=/k.yaml', '--', '--manifest-url-header=x'] };
    expect(redact(input)).toBe(input);
  });
});
