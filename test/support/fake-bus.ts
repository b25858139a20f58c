/**
 * A D-Bus "bus" that misbehaves on purpose, for tests: a unix socket server speaking the SASL
 * handshake and the messages by hand. It answers Hello with a unique name and every other method
 * call with an empty return, and then sends whatever raw bytes a test gives it, so a client can be
 * shown messages no real dbus-daemon would pass on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, encodeMessage, messageLength } from '../../src/adapters/dbus/message.js';

export interface FakeBus {
  address: string;
  /** The connected client's socket, once it said BEGIN and Hello was answered. */
  client(): Promise<Socket>;
  /** Writes `bytes` to the client in pieces of `chunk` bytes, each after the previous one was flushed. */
  send(bytes: Buffer, chunk?: number): Promise<void>;
  stop(): Promise<void>;
}

const GUID = '0123456789abcdef0123456789abcdef';

export async function startFakeBus(): Promise<FakeBus> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-fake-bus-'));
  const path = join(dir, 'bus.sock');
  const sockets = new Set<Socket>();
  let ready: (s: Socket) => void = () => {};
  const connected = new Promise<Socket>((resolve) => { ready = resolve; });
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let authText = '';
    let began = false;
    let inbox = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (!began) {
        authText += chunk.toString('latin1');
        if (authText.includes('AUTH EXTERNAL') && authText.endsWith('\r\n') && !authText.includes('BEGIN')) socket.write(`OK ${GUID}\r\n`);
        const begin = authText.indexOf('BEGIN\r\n');
        if (begin < 0) return;
        began = true;
        chunk = Buffer.from(authText.slice(begin + 'BEGIN\r\n'.length), 'latin1');
      }
      inbox = Buffer.concat([inbox, chunk]);
      for (let length = messageLength(inbox); length !== null && inbox.length >= length; length = messageLength(inbox)) {
        const call = decodeMessage(inbox.subarray(0, length));
        inbox = inbox.subarray(length);
        const hello = call.member === 'Hello';
        socket.write(encodeMessage({
          kind: 'return', serial: 1_000 + call.serial, replySerial: call.serial, destination: ':1.1', sender: 'org.freedesktop.DBus',
          ...(hello ? { signature: 's', body: [':1.1'] } : {}),
        }));
        if (hello) ready(socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    address: `unix:path=${path}`,
    client: () => connected,
    send: async (bytes, chunk = bytes.length) => {
      const socket = await connected;
      for (let at = 0; at < bytes.length; at += chunk) {
        await new Promise<void>((resolve, reject) => socket.write(bytes.subarray(at, at + chunk), (err) => (err ? reject(err) : resolve())));
      }
    },
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
