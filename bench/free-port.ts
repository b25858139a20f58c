import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port that is free now and that the kernel will not hand to anyone else by itself.
 *
 * Asking the kernel for port 0 and closing the server raced: the port went back to the ephemeral
 * range, where the next connect() or listen(0) of any process on the machine could take it before
 * the kubelet bound it (CI failed so once: EADDRINUSE on the kubelet's port, held for minutes by
 * another test's connection). A port below the ephemeral range is never picked by the kernel, so
 * only another caller of this function could take it: ports are drawn at random from 20000 up to
 * the range's start and never handed out twice by one process. Where the ephemeral range leaves
 * no room below it, the kernel's pick is the fallback.
 */
export async function freePort(): Promise<number> {
  const low = 20_000;
  const high = Math.min(ephemeralRangeStart(), 32_768);
  for (let attempt = 0; high - low >= 1_000 && attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return kernelPick();
}

const handedOut = new Set<number>();

function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) ? start : 32_768;
  } catch {
    return 32_768; // Linux's default start
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once('error', () => done(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => done(true)));
  });
}

function kernelPick(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
}
