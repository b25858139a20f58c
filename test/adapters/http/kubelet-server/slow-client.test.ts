import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeletApp } from '../../../../src/adapters/http/kubelet-server/server.js';
import { FakeKubeletView } from './fake-view.js';
import { serveApp } from './served-app.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('kubelet server and a slow client', () => {
  it('drops a client that never finishes its request once the request timeout passes', async () => {
    // The production bound is 60 s; shortened here, with Node checking often, to keep the test quick.
    const app = serveApp(buildKubeletApp({ view: new FakeKubeletView(), debuggingHandlers: true }), { requestTimeoutMs: 300, connectionsCheckingIntervalMs: 50 });
    close = () => app.close();
    const port = await app.port();
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      const sock = connect(port, '127.0.0.1', () => sock.write('GET /pods HTTP/1.1\r\nHost: kubelet\r\n'));
      sock.setEncoding('utf8');
      sock.on('data', (c: string) => (got += c));
      sock.on('close', () => resolve(got));
      sock.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
