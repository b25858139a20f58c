/**
 * The real kubectl (Debian's 1.20, the spdystream client CI uses; KUBECTL names another binary)
 * against the SPDY module alone: a fake "API server" on 127.0.0.1 answers kubectl's GET for the pod
 * with a minimal Pod and serves the exec and port-forward upgrades with serveSpdyRemoteCommand and
 * serveSpdyPortForward, running commands as host processes and dialling ports on 127.0.0.1. This is
 * the interop check of our frame codec, header compression and session against Go's.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Duplex } from 'node:stream';
import type { TerminalSize } from '../../../../src/adapters/stream-protocols/sessions.js';
import { serveSpdyPortForward } from '../../../../src/adapters/stream-protocols/spdy/port-forward.js';
import { serveSpdyRemoteCommand } from '../../../../src/adapters/stream-protocols/spdy/remote-command.js';
import { runOnHost } from '../../../support/host-command-runner.js';
import { eventually } from './collect.js';
import { describeNeeding, kubectlPart } from '../../../support/real-parts.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';
/** The bound of the port-forward of 50 requests: generous for a loaded 2-core machine (over 60 s at load 20). */
const PORT_FORWARD_TIMEOUT_MS = 180_000;

interface Run { code: number | null; stdout: string; stderr: string }

function pod(name: string) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'default', uid: '00000000-0000-0000-0000-000000000001' },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
    status: { phase: 'Running' },
  };
}

const DISCOVERY: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
  '/api/v1': {
    kind: 'APIResourceList', groupVersion: 'v1', resources: [
      { name: 'pods', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
      { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'pods/portforward', singularName: '', namespaced: true, kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    ],
  },
};

describeNeeding(kubectlPart(KUBECTL), 'kubectl 1.20 exec and port-forward against the SPDY module', () => {
  let dir: string;
  let api: Server;
  let kubeconfig: string;
  const upgrades: string[] = [];
  const sizes: TerminalSize[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-spdy-kubectl-'));
    api = createServer((req, res) => {
      const path = req.url!.split('?')[0]!;
      // Discovery, which kubectl reads before it resolves "pods".
      if (path in DISCOVERY) {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(DISCOVERY[path]));
        return;
      }
      const match = /^\/api\/v1\/namespaces\/default\/pods\/([^/?]+)$/.exec(req.url!.split('?')[0]!);
      if (req.method === 'GET' && match) {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(pod(match[1]!)));
        return;
      }
      res.statusCode = 404;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${req.url} not found` }));
    });
    api.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url!, 'http://x');
      upgrades.push(`${req.headers.upgrade} ${url.pathname}`);
      const flag = (n: string) => url.searchParams.get(n) === 'true' || url.searchParams.get(n) === '1';
      const options = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
      if (url.pathname.endsWith('/exec') || url.pathname.endsWith('/attach')) {
        // An attach "joins" a container's main process: here, a fixed command stands in for it.
        const command = url.pathname.endsWith('/exec') ? url.searchParams.getAll('command') : ['sh', '-c', 'echo attached; echo on-stderr >&2'];
        serveSpdyRemoteCommand(req, socket, head, options, (session) => {
          session.onResize((size) => {
            sizes.push(size);
            // What the exec'd command waits for: the size has reached the server.
            writeFileSync(join(dir, 'resized'), '');
          });
          runOnHost(command, session);
        }, { idleTimeoutMs: 60_000 });
      } else if (url.pathname.endsWith('/portforward')) {
        serveSpdyPortForward(req, socket, head, (port) => new Promise((resolve, reject) => {
          const conn = connect(port, '127.0.0.1');
          conn.once('connect', () => resolve(conn));
          conn.once('error', (e) => reject(new Error(`error forwarding port ${port} to pod test: ${e.message}`)));
        }), { idleTimeoutMs: 60_000 });
      } else socket.destroy();
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const port = (api.address() as AddressInfo).port;
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config',
      `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      'users: [{name: nobody, user: {}}]',
      'contexts: [{name: fake, context: {cluster: fake, user: nobody, namespace: default}}]',
      'current-context: fake', '',
    ].join('\n'));
  });
  afterAll(async () => {
    api.closeAllConnections();
    await new Promise<void>((r) => api.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = (args: string[], input?: string | Buffer): Promise<Run> => new Promise((done) => {
    const child = execFile(KUBECTL, [`--kubeconfig=${kubeconfig}`, ...args], { timeout: 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });

  /** `kubectl port-forward p1 :remote`, with the local port it picked once it says so. */
  function startPortForward(remotePort: number) {
    const child = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, 'port-forward', 'p1', `:${remotePort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const localPort = new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${out}${err}`)));
    });
    localPort.catch(() => undefined);
    return {
      localPort,
      stderr: () => err,
      stop: async () => {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      },
    };
  }

  it('runs a command: both streams arrive apart, and kubectl exits with its code', async () => {
    const r = await kubectl(['exec', 'p1', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    // The last line is kubectl's own, from the ExitCode cause of the v4 Status.
    expect(r).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\ncommand terminated with exit code 3\n' });
    expect(upgrades.at(-1)).toBe('SPDY/3.1 /api/v1/namespaces/default/pods/p1/exec');
  });

  it('exits 0 after a successful command', async () => {
    expect(await kubectl(['exec', 'p1', '--', 'sh', '-c', 'echo fine'])).toEqual({ code: 0, stdout: 'fine\n', stderr: '' });
  });

  it('passes stdin through with -i, to its end (8 MiB, by checksum)', async () => {
    const input = Buffer.alloc(8 << 20);
    for (let i = 0; i < input.length; i++) input[i] = (i * 131 + (i >> 9)) & 0xff;
    const r = await kubectl(['exec', '-i', 'p1', '--', 'sh', '-c', 'sha256sum; echo done >&2'], input);
    expect(r.code).toBe(0);
    expect(r.stdout.split(' ')[0]).toBe(createHash('sha256').update(input).digest('hex'));
    expect(r.stderr).toBe('done\n');
  });

  it('reports a command that could not run as the Status says (InternalError), exit 1', async () => {
    const r = await kubectl(['exec', 'p1', '--', '/nonexistent/tool']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Internal error occurred: spawn \/nonexistent\/tool ENOENT\n$/);
  });

  it('attaches: the container’s output on both streams, exit 0', async () => {
    const r = await kubectl(['attach', 'p1', '-c', 'main']);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: 'attached\n' });
    // kubectl's own hint comes first on stderr ("If you don't see a command prompt…").
    expect(r.stderr).toMatch(/\non-stderr\n$/);
    expect(upgrades.at(-1)).toBe('SPDY/3.1 /api/v1/namespaces/default/pods/p1/attach');
  });

  it('gives -it a TTY: the terminal size arrives on the resize stream, stderr joins stdout, the exit code comes back', async () => {
    sizes.length = 0;
    // kubectl wants a terminal on its stdin: script(1) gives it one, of a size set with stty.
    // The command waits (up to 10 s, polling: a shell has no file event) until the server has
    // received kubectl's first size, so the session is still open when it comes; the size is read
    // from what the server received (sizes), not from the command's output.
    const resized = join(dir, 'resized');
    rmSync(resized, { force: true });
    // Polls in the container for the resize's marker, giving up after 10 s; the step is not a wait of the test's.
    const waitForSize = `i=0; while [ ! -e ${resized} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`;
    const inner = `stty cols 91 rows 27; exec ${KUBECTL} --kubeconfig=${kubeconfig} exec -it p1 -- sh -c '${waitForSize}; echo on-tty; echo err-on-tty >&2; exit 5'`;
    const r = await new Promise<Run>((done) => {
      execFile('script', ['-qec', inner, '/dev/null'], { timeout: 60_000 }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      });
    });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain('on-tty');
    expect(r.stdout).toContain('err-on-tty');
    expect(sizes[0]).toEqual({ width: 91, height: 27 });
    expect(upgrades.at(-1)).toBe('SPDY/3.1 /api/v1/namespaces/default/pods/p1/exec');
  });

  it('forwards a port: 50 HTTP requests through kubectl port-forward', async () => {
    // /big is 64 MiB one way: spdystream never opens a SPDY window, so this shows we never wait for one.
    const big = Buffer.alloc(64 << 20);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    const target = createServer((req, res) => res.end(req.url === '/big' ? big : `hello ${req.url}`));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const targetPort = (target.address() as AddressInfo).port;
    const pf = startPortForward(targetPort);
    try {
      const localPort = await pf.localPort;
      for (let i = 0; i < 50; i++) {
        const body = await new Promise<string>((resolve, reject) => {
          request({ host: '127.0.0.1', port: localPort, path: `/r${i}`, agent: false }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve(text));
          }).once('error', reject).end();
        });
        expect(body).toBe(`hello /r${i}`);
      }
      const digest = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port: localPort, path: '/big', agent: false }, (res) => {
          const hash = createHash('sha256');
          res.on('data', (d: Buffer) => hash.update(d));
          res.on('end', () => resolve(hash.digest('hex')));
        }).once('error', reject).end();
      });
      expect(digest).toBe(createHash('sha256').update(big).digest('hex'));
    } finally {
      await pf.stop();
      target.closeAllConnections();
      await new Promise<void>((r) => target.close(() => r()));
    }
  }, PORT_FORWARD_TIMEOUT_MS);

  it('shows a dial failure: kubectl reports the error stream’s text and drops the local connection', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const pf = startPortForward(deadPort);
    try {
      const localPort = await pf.localPort;
      const outcome = await new Promise<string>((resolve) => {
        request({ host: '127.0.0.1', port: localPort, path: '/', agent: false }, () => resolve('answered')).once('error', (e) => resolve(e.message)).end();
      });
      expect(outcome).not.toBe('answered');
      const said = `error forwarding port ${deadPort} to pod test: connect ECONNREFUSED 127.0.0.1:${deadPort}`;
      await eventually('kubectl to print the error stream', () => pf.stderr().includes(said));
    } finally {
      await pf.stop();
    }
  }, 60_000);
});
