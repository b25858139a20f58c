import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SystemdNotifyCommand } from '../../../src/adapters/host/sd-notify.js';
import { LineChild } from './child-process-harness.js';

/** A real AF_UNIX datagram receiver (python3 is only a test tool here); '@name' binds an abstract socket. */
const RECEIVER = `
import socket, sys
name = sys.argv[1]
addr = '\\0' + name[1:] if name.startswith('@') else name
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(addr)
print('ready', flush=True)
while True:
    data = s.recv(4096)
    print('got ' + data.decode(), flush=True)
`;

describe('SystemdNotifyCommand', () => {
  let dir: string;
  let receiver: LineChild | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'klt-sdnotify-'));
  });
  afterEach(async () => {
    receiver?.kill();
    receiver = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  const listen = async (name: string) => {
    receiver = LineChild.start('python3', ['-c', RECEIVER, name]);
    await receiver.waitFor('ready');
    return receiver;
  };

  it('sends READY=1 as a datagram to the NOTIFY_SOCKET path', async () => {
    const path = join(dir, 'notify.sock');
    const rx = await listen(path);
    expect(await new SystemdNotifyCommand({ env: { NOTIFY_SOCKET: path, PATH: process.env['PATH'] } }).notifyReady()).toBe('sent');
    expect(await rx.waitFor('got ')).toBe('got READY=1');
  });

  it('sends to an abstract socket named with a leading @', async () => {
    const name = `@kubelet-ts-test-${randomBytes(6).toString('hex')}`;
    const rx = await listen(name);
    expect(await new SystemdNotifyCommand({ env: { NOTIFY_SOCKET: name, PATH: process.env['PATH'] } }).notifyReady()).toBe('sent');
    expect(await rx.waitFor('got ')).toBe('got READY=1');
  });

  it('sends WATCHDOG=1, the watchdog keep-alive, the same way', async () => {
    const path = join(dir, 'notify.sock');
    const rx = await listen(path);
    expect(await new SystemdNotifyCommand({ env: { NOTIFY_SOCKET: path, PATH: process.env['PATH'] } }).notifyWatchdog()).toBe('sent');
    expect(await rx.waitFor('got ')).toBe('got WATCHDOG=1');
  });

  it('sends nothing and says no-socket without NOTIFY_SOCKET', async () => {
    const notifier = new SystemdNotifyCommand({ env: { WATCHDOG_USEC: '20000000' }, command: join(dir, 'must-not-run') });
    expect(await notifier.notifyReady()).toBe('no-socket');
    expect(await notifier.notifyWatchdog()).toBe('no-socket');
  });

  it('says unsupported when systemd-notify is not installed', async () => {
    const notifier = new SystemdNotifyCommand({ env: { NOTIFY_SOCKET: join(dir, 'x.sock') }, command: join(dir, 'no-systemd-notify') });
    expect(await notifier.notifyReady()).toBe('unsupported');
  });

  it('says failed, without throwing, when nobody listens on the socket', async () => {
    const notifier = new SystemdNotifyCommand({ env: { NOTIFY_SOCKET: join(dir, 'nobody.sock'), PATH: process.env['PATH'] } });
    expect(await notifier.notifyReady()).toBe('failed');
  });
});
