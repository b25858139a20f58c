import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpProbe } from '../../../src/adapters/probers/http-prober.js';
import { probeRequestHeaders } from '../../../src/domain/probe/target.js';

/** A throwaway self-signed certificate for 127.0.0.1 (test only): probes must not verify it, as in Go. */
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgaWz35vO+vwVzSnYB
4LD8qZiLeejngGMU9vLZABEJEhOhRANCAATAzjpJ+Ox7fA9aMJXPkPGqSj7oaqiz
7P2BVL7GbU5V+K+0feTGQYa8IQiSyx9eOduTPdsmeb9uzhtS4vBUa4tB
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBpzCCAU6gAwIBAgIUNRU8UvDoHgMtlyCMhZHd9wCMY/8wCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVa3ViZWxldC10cyBwcm9iZSB0ZXN0MCAXDTI2MTEyMjAxMjEx
NloYDzIxMjYxMDI5MDEyMTE2WjAgMR4wHAYDVQQDDBVrdWJlbGV0LXRzIHByb2Jl
IHRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATAzjpJ+Ox7fA9aMJXPkPGq
Sj7oaqiz7P2BVL7GbU5V+K+0feTGQYa8IQiSyx9eOduTPdsmeb9uzhtS4vBUa4tB
o2QwYjAdBgNVHQ4EFgQUW7jsHw3d7T6gSgqcqvAErsTjE/kwHwYDVR0jBBgwFoAU
W7jsHw3d7T6gSgqcqvAErsTjE/kwDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAG
hwR/AAABMAoGCCqGSM49BAMCA0cAMEQCIFbuncrVclbA7ptjzxqo6pBYLCAUfjOr
zSno+aZUm6odAiAJiVNnGe/SvnJyHLJFjenRFdQNO1pOjnTrM1mmtwAtoA==
-----END CERTIFICATE-----`;

let server: https.Server;
let port: number;

beforeAll(async () => {
  server = https.createServer({ key: KEY, cert: CERT }, (req, res) => {
    res.writeHead(req.url === '/down' ? 503 : 200).end('tls ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('httpProbe over HTTPS', () => {
  it('accepts a certificate it cannot verify', async () => {
    const outcome = await httpProbe({ kind: 'httpGet', url: `https://127.0.0.1:${port}/`, headers: probeRequestHeaders([]), timeoutSeconds: 2 });
    expect(outcome).toEqual({ result: 'success', output: 'tls ok' });
  });

  it('still judges the status code', async () => {
    const outcome = await httpProbe({ kind: 'httpGet', url: `https://127.0.0.1:${port}/down`, headers: probeRequestHeaders([]), timeoutSeconds: 2 });
    expect(outcome.result).toBe('failure');
  });
});
