/**
 * An HTTP server on 127.0.0.1 for the SPDY tests that hands every upgrade to the given function, as
 * the runtime's streaming server will; closing it drops whatever connections are left.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface UpgradeServer {
  port: number;
  close(): Promise<void>;
}

export async function startUpgradeServer(onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): Promise<UpgradeServer> {
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  server.on('upgrade', onUpgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
