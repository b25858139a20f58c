/**
 * `/logs/` over real TLS sockets on 127.0.0.1, against a temp directory standing in for /var/log:
 * listings, files, redirects, and every way out of the directory refused (`..` in all spellings,
 * symbolic links to a file or a directory outside, a FIFO that would block a reader), and a
 * directory swapped for a link to a decoy between the checks and the listing never listing the decoy.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeletServer, type KubeletServerOptions, type RunningServer } from '../../../../src/adapters/http/kubelet-server/server.js';
import type { NodeRequestAttributes } from '../../../../src/ports/kubelet-view.js';
import { httpsRequest } from '../../../support/daemon.js';
import { FakeKubeletView } from './fake-view.js';

const SECRET = 'outside-the-log-directory';
let dir: string;
let logs: string;
const servers: RunningServer[] = [];
let port = 0;
const asked: NodeRequestAttributes[] = [];

async function start(extra: Partial<KubeletServerOptions> = {}): Promise<number> {
  const server = await startKubeletServer({
    address: '127.0.0.1', port: 0,
    tls: { certDir: join(dir, 'pki'), hostname: 'node-a', nodeIPs: ['127.0.0.1'] },
    auth: { anonymous: true, authorizationMode: 'Webhook', accessReviewer: { review: async (a) => (asked.push(a), { allowed: true }) } },
    view: new FakeKubeletView(), logger: pino({ level: 'silent' }),
    systemLogs: { enabled: true, dir: logs },
    ...extra,
  });
  servers.push(server);
  return Number(server.address.split(':').pop());
}

const get = (path: string, p = port) => httpsRequest(p, path);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-logs-'));
  logs = join(dir, 'log');
  await mkdir(join(logs, 'apt'), { recursive: true });
  await mkdir(join(dir, 'elsewhere'));
  await writeFile(join(logs, 'syslog'), 'line one\nline two\n');
  await writeFile(join(logs, 'apt', 'history.log'), 'apt history\n');
  await writeFile(join(logs, 'syslog.2.gz'), gzipSync('old lines\n'));
  await writeFile(join(logs, 'empty.log'), '');
  await writeFile(join(logs, 'a<b>&"c'), 'odd name\n');
  await writeFile(join(dir, 'secret.txt'), SECRET);
  await writeFile(join(dir, 'elsewhere', 'secret.txt'), SECRET);
  await symlink('syslog', join(logs, 'current'));
  await symlink('../secret.txt', join(logs, 'escape'));
  await symlink(join(dir, 'elsewhere'), join(logs, 'outdir'));
  await promisify(execFile)('mkfifo', [join(logs, 'pipe')]);
  port = await start();
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('/logs/ over TLS', () => {
  it('lists the log directory, directories with a trailing slash, names escaped', async () => {
    const r = await get('/logs/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.body).toContain('<a href="./apt/">apt/</a>');
    expect(r.body).toContain('<a href="./syslog">syslog</a>');
    expect(r.body).toContain('<a href="./a%3Cb%3E%26%22c">a&lt;b&gt;&amp;&#34;c</a>');
    expect(r.body.indexOf('./apt/')).toBeLessThan(r.body.indexOf('./syslog'));
  });

  it('serves a file, a file below a directory, and a link that stays inside', async () => {
    expect(await get('/logs/syslog')).toMatchObject({ status: 200, body: 'line one\nline two\n', headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '18' } });
    expect(await get('/logs/apt/history.log')).toMatchObject({ status: 200, body: 'apt history\n' });
    expect(await get('/logs/current')).toMatchObject({ status: 200, body: 'line one\nline two\n' });
    expect(await get('/logs/empty.log')).toMatchObject({ status: 200, body: '' });
    expect((await get('/logs/syslog.2.gz')).headers['content-type']).toBe('application/x-gzip');
  });

  it('lists a subdirectory and redirects to it when its slash is missing, as Go\'s FileServer', async () => {
    expect(await get('/logs/apt/')).toMatchObject({ status: 200 });
    expect((await get('/logs/apt/')).body).toContain('<a href="./history.log">history.log</a>');
    expect(await get('/logs/apt')).toMatchObject({ status: 301, headers: { location: './apt/' } });
    expect(await get('/logs/syslog/')).toMatchObject({ status: 301, headers: { location: '../syslog' } });
  });

  it.each([
    '/logs/../secret.txt',
    '/logs/%2e%2e/secret.txt',
    '/logs/%2E%2E%2Fsecret.txt',
    '/logs/apt/..%2f..%2fsecret.txt',
    '/logs/apt/../../secret.txt',
    '/logs/..',
  ])('refuses %s with 400 before touching the file system', async (path) => {
    const r = await get(path);
    expect(r.status).toBe(400);
    expect(r.body).toBe('invalid URL path\n');
  });

  it.each([
    ['/logs/%00syslog', 'invalid URL path: NUL byte\n'],
    ['/logs/apt%5C..%5Csecret.txt', 'invalid URL path: backslash\n'],
    ['/logs/%zz', "'/logs/%zz' is not a valid url component\n"],
  ])('refuses the malformed path %s with 400 and a reason', async (path, reason) => {
    expect(await get(path)).toMatchObject({ status: 400, body: reason });
  });

  it('answers 404 for a link to a file outside the directory, and never its content', async () => {
    const r = await get('/logs/escape');
    expect(r.status).toBe(404);
    expect(r.body).toBe('the log path resolves outside the log directory\n');
    expect(r.body).not.toContain(SECRET);
  });

  it('answers 404 for a path through a link to a directory outside', async () => {
    for (const path of ['/logs/outdir/secret.txt', '/logs/outdir/']) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.body).not.toContain(SECRET);
    }
  });

  it('answers 404 for a FIFO without blocking, and for a missing file', async () => {
    expect(await get('/logs/pipe')).toMatchObject({ status: 404, body: 'not a regular file or directory\n' });
    expect(await get('/logs/nope.log')).toMatchObject({ status: 404, body: '404 page not found\n' });
  });

  it('answers 501 to a node log query (NodeLogQuery is not implemented)', async () => {
    const r = await get('/logs/?query=kubelet');
    expect(r.status).toBe(501);
    expect(r.body).toMatch(/not implemented/);
  });

  it('is authorized as nodes/log', async () => {
    asked.length = 0;
    await get('/logs/syslog');
    expect(asked.map((a) => [a.subresource, a.verb])).toEqual([['log', 'get']]);
  });
});

describe('/logs/ switched off', () => {
  it('answers 405 "logs endpoint is disabled." when enableSystemLogHandler is false', async () => {
    const p = await start({ systemLogs: { enabled: false, dir: logs } });
    expect(await get('/logs/syslog', p)).toMatchObject({ status: 405, body: 'logs endpoint is disabled.\n' });
  });

  it('answers 405 "Debug endpoints are disabled." when the debugging handlers are off, whatever enableSystemLogHandler says', async () => {
    const p = await start({ debuggingHandlers: false });
    expect(await get('/logs/', p)).toMatchObject({ status: 405, body: 'Debug endpoints are disabled.\n' });
    expect(await get('/logs/syslog', p)).toMatchObject({ status: 405, body: 'Debug endpoints are disabled.\n' });
  });
});

describe('/logs/ against a directory swapped for a link while it is served', () => {
  const DECOY_ENTRY = 'decoy-entry-must-not-be-listed';
  let raceDir: string;

  beforeAll(async () => {
    raceDir = join(dir, 'race-root');
    await mkdir(join(raceDir, 'sub'), { recursive: true });
    await writeFile(join(raceDir, 'sub', 'inside.log'), 'inside\n');
    await writeFile(join(raceDir, 'sub', 'other.log'), 'other\n');
    await mkdir(join(dir, 'decoy'));
    await writeFile(join(dir, 'decoy', DECOY_ENTRY), SECRET);
  });

  /** Puts a link to the decoy where `sub` was (`sub` moved aside), or back. */
  async function swap(toDecoy: boolean): Promise<void> {
    if (toDecoy) {
      await rename(join(raceDir, 'sub'), join(raceDir, 'sub.aside'));
      await symlink(join(dir, 'decoy'), join(raceDir, 'sub'));
    } else {
      await rm(join(raceDir, 'sub'));
      await rename(join(raceDir, 'sub.aside'), join(raceDir, 'sub'));
    }
  }

  it('lists the directory it opened when the swap comes right after the open', async () => {
    let swapNext = false;
    const p = await start({
      systemLogs: {
        enabled: true, dir: raceDir,
        openPath: async (path, flags) => {
          const handle = await open(path, flags);
          if (swapNext) {
            swapNext = false;
            await swap(true);
          }
          return handle;
        },
      },
    });
    swapNext = true;
    try {
      const r = await get('/logs/sub/', p);
      expect(r.body).not.toContain(DECOY_ENTRY);
      expect(r).toMatchObject({ status: 200 });
      expect(r.body).toContain('inside.log');
    } finally {
      await swap(false);
    }
    // A file opened just before its directory is swapped is still the one read.
    swapNext = true;
    try {
      expect(await get('/logs/sub/inside.log', p)).toMatchObject({ status: 200, body: 'inside\n' });
    } finally {
      await swap(false);
    }
  });

  it('never lists the decoy in 1,500 requests while another process swaps the directory in a tight loop', async () => {
    const p = await start({ systemLogs: { enabled: true, dir: raceDir } });
    const swapper = spawn(process.execPath, ['-e', `
      const fs = require('node:fs');
      const [sub, aside, decoy] = process.argv.slice(1);
      for (;;) {
        fs.renameSync(sub, aside);
        fs.symlinkSync(decoy, sub);
        fs.unlinkSync(sub);
        fs.renameSync(aside, sub);
      }`, join(raceDir, 'sub'), join(raceDir, 'sub.aside'), join(dir, 'decoy')], { stdio: 'ignore' });
    const agent = new Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false });
    const fetchListing = () => new Promise<{ status: number; body: string }>((done, fail) => {
      request({ host: '127.0.0.1', port: p, path: '/logs/sub/', agent }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      }).on('error', fail).end();
    });
    const statuses = new Map<number, number>();
    let decoys = 0;
    let listed = 0;
    try {
      for (let i = 0; i < 1500; i += 4) {
        for (const r of await Promise.all([fetchListing(), fetchListing(), fetchListing(), fetchListing()])) {
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.body.includes(DECOY_ENTRY)) decoys++;
          if (r.status === 200 && r.body.includes('inside.log')) listed++;
        }
      }
    } finally {
      const exited = new Promise((r) => swapper.once('exit', r));
      swapper.kill('SIGKILL');
      await exited;
      agent.destroy();
      // Leave the tree as it was, whichever step the swapper was killed at.
      await rm(join(raceDir, 'sub'), { force: true }).catch(() => undefined);
      await rename(join(raceDir, 'sub.aside'), join(raceDir, 'sub')).catch(() => undefined);
    }
    expect(decoys, `decoy listed; statuses ${JSON.stringify([...statuses])}`).toBe(0);
    // The loop did reach the directory itself, not only the link.
    expect(listed).toBeGreaterThan(0);
  }, 120_000);
});
