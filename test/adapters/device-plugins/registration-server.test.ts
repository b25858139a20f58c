/**
 * The device plugins' kubelet.sock and its connection bounds: a connection that never sends the
 * HTTP/2 preface is closed after the preface timeout (shortened here), and past the bound a new
 * connection is closed as it comes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { serveRegistration } from '../../../src/adapters/device-plugins/registration-server.js';
import type { FrontBounds } from '../../../src/adapters/h2/authority-proxy.js';
import { DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS } from '../../../src/adapters/h2/front-bounds.js';
import { capturedLog, expectConnectionBound, expectPrefaceTimeout, untilTakesANewConnection } from '../../support/front-connections.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** kubelet.sock in a directory of its own; its bounds front-bounds.ts's unless `bounds`. */
async function serving(log: pino.Logger, bounds?: FrontBounds): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dp-reg-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const handlers = { onRegisterReceived: () => {}, onConnected: () => {} };
  const served = await serveRegistration(dir, handlers, { logger: log, onPluginOptions: () => {}, ...(bounds ? { connectionBounds: bounds } : {}) });
  cleanups.push(() => served.stop());
  return join(dir, 'kubelet.sock');
}

const cleanup = (destroy: () => void) => void cleanups.push(destroy);

describe('the device plugins\' kubelet.sock connection bounds', () => {
  it('closes a connection that sends no HTTP/2 preface within the preface timeout, naming the socket in the log, and keeps one that sent it', async () => {
    const { log, lines } = capturedLog();
    const socketPath = await serving(log, { maxConnections: DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS, prefaceTimeoutMs: 200 });
    await untilTakesANewConnection(socketPath); // the server behind the front is started
    await expectPrefaceTimeout(socketPath, 200, cleanup);
    expect(lines).toContainEqual(expect.objectContaining({ socket: socketPath, timeoutMs: 200, msg: expect.stringContaining('no HTTP/2 preface') }));
  });

  it(`closes the connections past its bound of ${DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS} as they come, logged once, and takes a new one when one went`, async () => {
    const { log, lines } = capturedLog();
    const socketPath = await serving(log);
    await expectConnectionBound(socketPath, DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS, cleanup);
    expect(lines.filter((l) => String(l.msg).includes('at their bound'))).toEqual([expect.objectContaining({ socket: socketPath, maxConnections: DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS })]);
  });
});
