import { createServer } from 'node:net';

/** A loopback port free at the time of asking (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
}
