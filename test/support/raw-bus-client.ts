/**
 * A bus client for tests that sends whatever messages it is given, signals included (the kubelet's
 * client sends method calls only): an ordinary local user's connection, to play a spoofer or a
 * new owner of a name. Replies are not read, except Hello's, which gives the unique name.
 */
import { createConnection } from 'node:net';
import { unixSocketPath } from '../../src/adapters/dbus/connection.js';
import { decodeMessage, encodeMessage, messageLength, type DbusMessage } from '../../src/adapters/dbus/message.js';

export interface RawBusClient {
  uniqueName: string;
  /** Sends `m` with the next serial; the bus handles one connection's messages in order. */
  send(m: Omit<DbusMessage, 'serial'>): void;
  close(): void;
}

const BUS = { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' };

export async function rawBusClient(address: string, uid: number): Promise<RawBusClient> {
  const socket = createConnection({ path: unixSocketPath(address) });
  let serial = 0;
  const uniqueName = await new Promise<string>((resolve, reject) => {
    let text = '';
    let inbox = Buffer.alloc(0);
    socket.once('error', reject);
    const onData = (chunk: Buffer) => {
      if (!text.includes('\r\n')) {
        text += chunk.toString('latin1');
        if (!text.includes('\r\n')) return;
        if (!text.startsWith('OK ')) { reject(new Error(`the bus refused us: ${text}`)); return; }
        socket.write(Buffer.concat([Buffer.from('BEGIN\r\n'), encodeMessage({ kind: 'call', serial: ++serial, ...BUS, member: 'Hello' })]));
        return;
      }
      inbox = Buffer.concat([inbox, chunk]);
      for (let length = messageLength(inbox); length !== null && inbox.length >= length; length = messageLength(inbox)) {
        const m = decodeMessage(inbox.subarray(0, length));
        inbox = inbox.subarray(length);
        if (m.kind === 'return' && m.replySerial === 1) {
          socket.off('data', onData);
          socket.resume();
          resolve(String(m.body?.[0]));
          return;
        }
      }
    };
    socket.on('data', onData);
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid), 'ascii').toString('hex')}\r\n`);
  });
  return {
    uniqueName,
    send: (m) => socket.write(encodeMessage({ ...m, serial: ++serial } as DbusMessage)),
    close: () => socket.destroy(),
  };
}

/** Asks for `name`; a bus that allows it makes the client its owner before it handles the client's next message. */
export function requestName(client: RawBusClient, name: string): void {
  client.send({ kind: 'call', ...BUS, member: 'RequestName', signature: 'su', body: [name, 0] });
}
