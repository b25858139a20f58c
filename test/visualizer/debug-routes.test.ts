import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDebugApp, startDebugServer, type DebugServer } from '../../src/adapters/debug-server/server.js';
import { JournalFeed, staticFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { startupReport } from '../../src/domain/journal/report.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import { machineGraphs } from '../../src/machines/index.js';

const FIXTURE = 'test/fixtures/eventlogs/standalone-embedded.jsonl';
const base = { actors: () => [], pods: () => ({ pods: [] }), journal: () => ({ path: null, records: 0 }) };

function record(seq: number, actor = 'pod:x'): JournalRecord {
  return { seq, t: seq, wall: '', actor, kind: 'derived', type: 'event', name: 'pod.sync.requested', source: null, payload: { pad: 'x'.repeat(200) } };
}

describe('debug server: visualizer routes', () => {
  it('serves the page, its script and styles from itself: no other origin is named', async () => {
    const app = buildDebugApp(base);
    for (const url of ['/', '/visualizer/app.js', '/visualizer/app.css']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).not.toMatch(/https?:\/\//);
    }
    expect((await app.inject({ url: '/' })).headers['content-type']).toMatch(/text\/html/);
    // the existing routes still answer
    expect((await app.inject({ url: '/debug/actors' })).json()).toEqual({ actors: [] });
    expect((await app.inject({ url: '/debug/journal/stats' })).statusCode).toBe(200);
  });

  it('lists the machines and draws each as SVG', async () => {
    const app = buildDebugApp({ ...base, visualizer: { mode: 'live', graphs: machineGraphs() } });
    const info = (await app.inject({ url: '/visualizer/info' })).json();
    expect(info).toMatchObject({ mode: 'live', journal: false });
    expect(info.machines).toContain('supervisor');
    const svg = await app.inject({ url: '/visualizer/charts/podWorker.svg' });
    expect(svg.headers['content-type']).toMatch(/image\/svg\+xml/);
    expect(svg.body).toContain('data-path="terminating.killing"');
    expect((await app.inject({ url: '/visualizer/charts/nope.svg' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/debug/startup' })).statusCode).toBe(404);
  });

  it('answers the start-up report up to a record, as kubelet-ts report computes it', async () => {
    const { records } = readJournal(FIXTURE);
    const app = buildDebugApp({ ...base, visualizer: { mode: 'replay', graphs: machineGraphs(), feed: staticFeed(records) } });
    expect((await app.inject({ url: '/debug/startup' })).json()).toEqual(startupReport(records));
    const mid = records[40]!.seq;
    expect((await app.inject({ url: `/debug/startup?upTo=${mid}` })).json()).toEqual(startupReport(records.filter((r) => r.seq <= mid)));
    expect((await app.inject({ url: '/debug/journal/records' })).json().records).toHaveLength(records.length);
  });
});

describe('JournalFeed', () => {
  it('keeps the supervisor from the start and the rest in a bounded ring, in seq order', () => {
    const feed = new JournalFeed({ maxRecent: 3 });
    feed.append(record(1, 'supervisor'));
    for (let i = 2; i <= 9; i++) feed.append(record(i, i === 5 ? 'supervisor' : 'pod:x'));
    expect(feed.history().map((r) => r.seq)).toEqual([1, 5, 7, 8, 9]);
  });

  it('drops a listener that throws and keeps serving the others', () => {
    const feed = new JournalFeed();
    const seen: number[] = [];
    feed.subscribe(() => { throw new Error('bad page'); });
    feed.subscribe((r) => seen.push(r.seq));
    feed.append(record(1));
    feed.append(record(2));
    expect(seen).toEqual([1, 2]);
  });
});

describe('journal stream (server-sent events)', () => {
  let server: DebugServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('sends every record to a reader that keeps up', async () => {
    const feed = new JournalFeed();
    server = await startDebugServer('127.0.0.1:0', { ...base, visualizer: { mode: 'live', graphs: machineGraphs(), feed } });
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(`http://${server!.address}/debug/journal/stream`, (res) => {
        expect(res.headers['content-type']).toMatch(/text\/event-stream/);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          if (body.includes('id: 50\n')) {
            req.destroy();
            resolve(body);
          }
        });
        for (let i = 1; i <= 50; i++) feed.append(record(i));
      });
      req.on('error', reject);
      req.end();
    });
    const seqs = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(text).not.toContain('event: dropped');
  });

  it('drops records for a reader that does not read, tells it how many, and never blocks the appender', async () => {
    const feed = new JournalFeed();
    server = await startDebugServer('127.0.0.1:0', { ...base, visualizer: { mode: 'live', graphs: machineGraphs(), feed, stream: { maxQueue: 100 } } });
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(`http://${server!.address}/debug/journal/stream`, resolve);
      req.on('error', reject);
      req.end();
    });
    res.pause();
    // 20 000 records of ~300 bytes: far beyond the socket buffers and the 100-record queue.
    const started = process.hrtime.bigint();
    for (let i = 1; i <= 20_000; i++) feed.append(record(i));
    const appendMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(appendMs).toBeLessThan(2000);
    // The stream writes on setImmediate after an append; one more setImmediate, queued after it,
    // runs once it has: the server has tried to write while this reader was still paused.
    await new Promise((r) => setImmediate(r));
    res.setEncoding('utf8');
    let body = '';
    res.on('data', (c: string) => (body += c));
    res.resume();
    // The reader catches up: the newest of the burst arrives.
    await vi.waitFor(() => expect(body).toContain('id: 20000\n'), { timeout: 5_000 });
    feed.append(record(20_001));
    await vi.waitFor(() => expect(body).toContain('id: 20001\n'), { timeout: 5_000 });
    res.destroy();
    const dropped = [...body.matchAll(/^event: dropped\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { dropped: number; total: number });
    expect(dropped.length).toBeGreaterThan(0);
    const seqs = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(seqs.length + dropped.at(-1)!.total).toBe(20_001);
    expect(seqs.at(-1)).toBe(20_001);
    // what arrives is in order
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });
});
