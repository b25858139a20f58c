import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { authenticateRequest, bearerToken } from '../../../../src/adapters/http/kubelet-server/authenticate.js';

const request = (headers: Record<string, string> = {}, socket: object = {}) => ({ headers, socket }) as unknown as IncomingMessage;

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'], ['bearer abc', 'abc'], ['  Bearer abc  ', 'abc'], ['Basic abc', undefined], ['Bearer', undefined], [undefined, undefined],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

describe('authenticateRequest', () => {
  it('ignores client certificates when no client CA is configured', async () => {
    const socket = { getPeerCertificate: () => ({ subject: { CN: 'alice' } }) };
    expect(await authenticateRequest(request({}, socket), { anonymous: false })).toMatchObject({ ok: false });
  });

  it('takes a verified certificate\'s CN and O, adding system:authenticated', async () => {
    const socket = { getPeerCertificate: () => ({ subject: { CN: 'alice', O: 'devs' } }) };
    expect(await authenticateRequest(request({}, socket), { anonymous: false, clientCertificates: (s) => (s === socket ? { ok: true } : undefined) }))
      .toEqual({ ok: true, method: 'x509', user: { name: 'alice', groups: ['devs', 'system:authenticated'] } });
  });

  it('fails an unverified certificate even when anonymous is allowed', async () => {
    const socket = { getPeerCertificate: () => ({ subject: { CN: 'eve' } }) };
    const r = await authenticateRequest(request({}, socket), { anonymous: true, clientCertificates: () => ({ ok: false, reason: 'x509: certificate signed by unknown authority' }) });
    expect(r).toEqual({ ok: false, reason: 'verifying certificate failed: x509: certificate signed by unknown authority' });
  });

  it('fails a certificate on a connection that was never verified', async () => {
    const socket = { getPeerCertificate: () => ({ subject: { CN: 'alice' } }) };
    const r = await authenticateRequest(request({}, socket), { anonymous: true, clientCertificates: () => undefined });
    expect(r).toMatchObject({ ok: false, reason: expect.stringContaining('not verified') });
  });

  it('fails when the TokenReviewer itself fails', async () => {
    const r = await authenticateRequest(request({ authorization: 'Bearer t' }), {
      anonymous: true, tokenReviewer: { review: async () => ({ authenticated: false, error: 'apiserver unreachable' }) },
    });
    expect(r).toEqual({ ok: false, reason: 'apiserver unreachable' });
  });

  it('falls back to anonymous when nothing is presented', async () => {
    expect(await authenticateRequest(request(), { anonymous: true, clientCertificates: () => undefined }))
      .toEqual({ ok: true, method: 'anonymous', user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });
});
