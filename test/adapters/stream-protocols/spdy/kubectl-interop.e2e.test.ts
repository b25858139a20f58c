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
import { serveSpdyPortForward } from '../../../../src/adapters/stream-protocols/spdy/port-forward.js';
import { serveSpdyRemoteCommand } from '../../../../src/adapters/stream-protocols/spdy/remote-command.js';
import { runOnHost } from '../../../support/host-command-runner.js';
import { describeNeeding, kubectlPart } from '../../../support/real-parts.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

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
      if (url.pathname.endsWith('/exec')) {
        const flag = (n: string) => url.searchParams.get(n) === 'true' || url.searchParams.get(n) === '1';
        const command = url.searchParams.getAll('command');
        serveSpdyRemoteCommand(req, socket, head, { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') },
          (session) => runOnHost(command, session), { idleTimeoutMs: 60_000 });
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

  it('forwards a port: 50 HTTP requests through kubectl port-forward', async () => {
    const target = createServer((req, res) => res.end(`hello ${req.url}`));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const targetPort = (target.address() as AddressInfo).port;
    const pf = spawn(KUBECTL, [`--kubeconfig=${kubeconfig}`, 'port-forward', 'p1', `:${targetPort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const localPort = await new Promise<number>((resolve, reject) => {
        pf.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        pf.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${out}`)));
      });
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
    } finally {
      pf.kill('SIGTERM');
      await new Promise((r) => (pf.exitCode !== null ? r(null) : pf.once('exit', r)));
      target.closeAllConnections();
      await new Promise<void>((r) => target.close(() => r()));
    }
  }, 60_000);
});
