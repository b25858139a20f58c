/**
 * A unix socket in front of another (a CRI runtime's): every connection is passed through byte for
 * byte, except that the first one is held `firstConnectionHoldMs` before it reaches the runtime,
 * as a runtime slow to answer its first caller would be. The kubelet's first CRI connection is the
 * one run.preInitRuntime opens for Version, so the delay lands in that start-up phase alone, with
 * nothing in the kubelet changed.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface SlowSocketProxy {
  path: string;
  close(): Promise<void>;
}

export async function startSlowSocketProxy(opts: { path: string; upstream: string; firstConnectionHoldMs: number }): Promise<SlowSocketProxy> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    // Until the runtime's side is open, what the kubelet sends waits in the client socket's buffer.
    client.pause();
    const hold = connections++ === 0 ? opts.firstConnectionHoldMs : 0;
    setTimeout(() => {
      const runtime = connect(opts.upstream);
      sockets.add(runtime);
      runtime.on('close', () => sockets.delete(runtime));
      runtime.on('error', () => client.destroy());
      client.on('error', () => runtime.destroy());
      runtime.on('connect', () => {
        client.pipe(runtime);
        runtime.pipe(client);
        client.resume();
      });
    }, hold);
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(opts.path, ready);
  });
  return {
    path: opts.path,
    close: () => new Promise<void>((done) => {
      for (const s of sockets) s.destroy();
      server.close(() => done());
    }),
  };
}
