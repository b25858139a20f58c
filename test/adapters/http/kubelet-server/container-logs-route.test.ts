import { appendFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { get, type ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildKubeletApp } from '../../../../src/adapters/http/kubelet-server/server.js';
import { FakeKubeletView, testPod } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

const LOG = [
  '2024-01-02T03:04:01.000000001Z stdout F one',
  '2024-01-02T03:04:02.000000002Z stderr F two',
  'garbage that is not CRI',
  '2024-01-02T03:04:03.000000003Z stdout P thr',
  '2024-01-02T03:04:03.100000000Z stdout F ee',
  '2024-01-02T03:04:04.000000004Z stdout F four',
].join('\n') + '\n';

let dir: string;
let logPath: string;
let view: FakeKubeletView;
let app: ServedApp;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-logs-'));
  logPath = join(dir, '0.log');
  await writeFile(logPath, LOG);
  view = new FakeKubeletView();
  view.podsList = [testPod('web', 'prod', ['app', 'side'])];
  view.logPaths.set('prod/web/app', logPath);
  app = serveApp(buildKubeletApp({ view, debuggingHandlers: true, logLimits: { followPollMs: 20 } }));
});

afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

const logs = (query = '', pod = 'web', container = 'app') => app.inject(`/containerLogs/prod/${pod}/${container}${query}`);

describe('/containerLogs', () => {
  it('returns the whole log, partial lines joined, malformed lines skipped', async () => {
    const res = await logs();
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('one\ntwo\nthree\nfour\n');
  });

  it('returns the last tailLines lines (file lines, partial ones included)', async () => {
    expect((await logs('?tailLines=1')).body).toBe('four\n');
    expect((await logs('?tailLines=3')).body).toBe('three\nfour\n');
    expect((await logs('?tailLines=0')).body).toBe('');
    expect((await logs('?tailLines=100')).body).toBe('one\ntwo\nthree\nfour\n');
    // Go accepts any int64: the largest is the whole log (#60).
    expect(await logs('?tailLines=9223372036854775807')).toMatchObject({ statusCode: 200, body: 'one\ntwo\nthree\nfour\n' });
    expect((await logs('?tailLines=9223372036854775808')).statusCode).toBe(400);
  });

  it('stops after limitBytes bytes, even mid-line', async () => {
    expect((await logs('?limitBytes=6')).body).toBe('one\ntw');
  });

  it('prefixes each record with its timestamp when asked', async () => {
    expect((await logs('?timestamps=true&tailLines=1')).body).toBe('2024-01-02T03:04:04.000000004Z four\n');
  });

  it('skips records before sinceTime', async () => {
    expect((await logs('?sinceTime=2024-01-02T03:04:03Z')).body).toBe('three\nfour\n');
  });

  it('reads the previous instance\'s log when asked, and says when there is none', async () => {
    const prev = join(dir, 'prev.log');
    await writeFile(prev, '2024-01-01T00:00:00Z stdout F old\n');
    view.logPaths.set('prod/web/app#previous', prev);
    expect((await logs('?previous=true')).body).toBe('old\n');
    const none = await logs('?previous=true', 'web', 'side');
    expect(none.statusCode).toBe(400);
    expect(none.body).toBe('previous terminated container "side" in pod "web" not found');
  });

  it('accepts every query shape the API server and client-go send: explicit false booleans, sinceTime, and parameters it does not use', async () => {
    const whole = 'one\ntwo\nthree\nfour\n';
    for (const query of ['?previous=false', '?follow=false&previous=false&timestamps=false', '?container=app&previous=false', '?insecureSkipTLSVerifyBackend=true', '?follow=False&timestamps=0', '?tail=all']) {
      const res = await logs(query);
      expect({ query, status: res.statusCode, body: res.body }).toEqual({ query, status: 200, body: whole });
    }
    expect((await logs('?sinceTime=2024-01-02T03:04:03Z&tailLines=10&limitBytes=1000')).body).toBe('three\nfour\n');
    expect((await logs('?tail=1')).body).toBe('four\n');
  });

  it('answers 404 for an unknown pod or container, 400/422 for bad queries', async () => {
    expect([(await logs('', 'nope')).statusCode, (await logs('', 'nope')).body]).toEqual([404, 'pod "nope" does not exist']);
    expect((await logs('', 'web', 'nope')).body).toBe('container "nope" not found in pod "web"');
    expect((await logs('?tailLines=abc')).statusCode).toBe(400);
    expect((await logs('?tailLines=-2')).statusCode).toBe(422);
    expect((await logs('?limitBytes=0')).statusCode).toBe(422);
  });

  it('reads an ephemeral container\'s log by its name', async () => {
    const [web] = view.podsList;
    view.podsList = [{ ...web!, spec: { ...web!.spec, ephemeralContainers: [{ name: 'debugger', image: 'busybox' }] } }];
    view.logPaths.set('prod/web/debugger', logPath);
    expect(await logs('?tailLines=1', 'web', 'debugger')).toMatchObject({ statusCode: 200, body: 'four\n' });
  });

  it('answers 400 when the log file cannot be opened', async () => {
    view.logPaths.set('prod/web/app', join(dir, 'missing.log'));
    const res = await logs();
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('ENOENT');
  });

  it('answers 400 naming the file when the log is a link, never with what it points at', async () => {
    const target = join(dir, 'host-file');
    await writeFile(target, '2024-01-01T00:00:00Z stdout F root-only host file\n');
    const link = join(dir, 'link.log');
    await symlink(target, link);
    view.logPaths.set('prod/web/app', link);
    const res = await logs();
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`failed to open log file ${JSON.stringify(link)}: ${JSON.stringify(link)} is not a regular file`);
    expect(res.body).not.toContain('root-only');
  });

  it('with follow, delivers a line appended after the request and ends when the container stops', async () => {
    view.containers.set('prod/web/app', { containerId: 'c1', uid: 'uid-web' });
    const port = await app.port();
    const received: string[] = [];
    let ended = false;
    const done = new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/containerLogs/prod/web/app?follow=true&tailLines=1' }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => received.push(c));
        res.on('end', () => { ended = true; resolve(res.statusCode ?? 0); });
      }).on('error', reject);
    });
    await expect.poll(() => received.join('')).toBe('four\n');
    await appendFile(logPath, '2024-01-02T03:05:00Z stdout F five\n');
    await expect.poll(() => received.join('')).toBe('four\nfive\n');
    expect(ended).toBe(false);
    await appendFile(logPath, '2024-01-02T03:05:01Z stdout F last words\n');
    view.containers.delete('prod/web/app');
    expect(await done).toBe(200);
    expect(received.join('')).toBe('four\nfive\nlast words\n');
  });

  it('with follow, ends when the followed instance restarts, as Go follows one container ID', async () => {
    view.containers.set('prod/web/app', { containerId: 'c1', uid: 'uid-web' });
    const port = await app.port();
    const received: string[] = [];
    const done = new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/containerLogs/prod/web/app?follow=true&tailLines=1' }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => received.push(c));
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
    await expect.poll(() => received.join('')).toBe('four\n');
    // The next instance runs under another ID (and writes 1.log): this stream is over.
    view.containers.set('prod/web/app', { containerId: 'c1-restarted', uid: 'uid-web' });
    expect(await done).toBe(200);
    expect(received.join('')).toBe('four\n');
  });

  it('with follow, stops when the client goes away', async () => {
    view.containers.set('prod/web/app', { containerId: 'c1', uid: 'uid-web' });
    view.containers.set('prod/web/side', { containerId: 'c2', uid: 'uid-web' });
    view.logPaths.set('prod/web/side', logPath);
    // Each follow loop polls runningContainer for its own container: count them apart.
    const polls = { app: 0, side: 0 };
    const running = view.runningContainer.bind(view);
    view.runningContainer = (namespace, pod, container, uid) => {
      if (container === 'app' || container === 'side') polls[container] += 1;
      return running(namespace, pod, container, uid);
    };
    const port = await app.port();
    const serverSide = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
    const follow = (container: string) => new Promise<ClientRequest>((resolve, reject) => {
      const req = get({ host: '127.0.0.1', port, path: `/containerLogs/prod/web/${container}?follow=true` }, (res) => {
        res.once('data', () => resolve(req));
      });
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    });
    (await follow('app')).destroy();
    // The server has seen the client go: its response closes, which aborts the follow loop, and
    // the loop checks the abort before each poll. By the time a second follow, opened after that,
    // has answered, the first loop has polled for the last time.
    const gone = await serverSide;
    if (!gone.destroyed) await new Promise((resolve) => gone.once('close', resolve));
    const control = await follow('side');
    const settled = polls.app;
    // The absence, against that control with the same poll period: once it has polled three more
    // times, a loop still running for the first client would have polled too.
    try {
      const from = polls.side;
      await vi.waitFor(() => expect(polls.side).toBeGreaterThanOrEqual(from + 3), { timeout: 5_000, interval: 10 });
    } finally {
      control.destroy();
    }
    expect(polls.app).toBe(settled);
  });
});

describe('/containerLogs follow of a container that is not running', () => {
  it('ends at once when the container is not running, with what the file holds', async () => {
    const res = await app.inject('/containerLogs/prod/web/app?follow=1&tailLines=3');
    expect([res.statusCode, res.body]).toEqual([200, 'three\nfour\n']);
  });
});
