import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJournalSink } from '../../src/adapters/journal-file/file-sink.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION } from '../../src/domain/journal/record.js';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { debugServerStarter } from '../../src/bin/server-starters.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import type { Story } from '../../src/domain/explain/story.js';
import type { RunningServer } from '../../src/adapters/http/listen.js';

const pod = {
  metadata: { name: 'web', namespace: 'prod', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'FROM_FIELD', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }] },
};
const record = (seq: number): JournalRecord => ({ seq, t: seq, wall: '', actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.spec.updated', source: null, payload: { pod } });

function get(url: string, until: (body: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        if (until(body)) {
          req.destroy();
          resolve(body);
        }
      });
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the daemon\'s debug server', () => {
  let server: RunningServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('hands out journal records, kept and live, without the pods\' literal env values', async () => {
    const feed = new JournalFeed();
    feed.append(record(1));
    const starter = debugServerStarter({
      directory: { list: () => [] }, views: { syncLoop: () => undefined }, feed, dropFeed: () => feed.clear(), journal: { records: 1 },
    } as unknown as Parameters<typeof debugServerStarter>[0], pino({ level: 'silent' }), () => null);
    server = await starter.start('127.0.0.1:0');
    const kept = await get(`http://${server.address}/debug/journal/records`, () => false);
    expect(kept).toContain('DB_PASSWORD');
    expect(kept).toContain('<redacted>');
    expect(kept).not.toContain('hunter2');
    expect(kept).toContain('spec.nodeName');

    const live = get(`http://${server.address}/debug/journal/stream`, (body) => body.includes('id: 2\n'));
    // The stream subscribes when the request arrives: append until it has.
    while (feed.subscribers === 0) await new Promise((r) => setImmediate(r));
    feed.append(record(2));
    const streamed = await live;
    expect(streamed).toContain('DB_PASSWORD');
    expect(streamed).not.toContain('hunter2');
    // The journal keeps the value: it is the file's owner's to read.
    expect(JSON.stringify(feed.history())).toContain('hunter2');
  });

  it('explains a pod from the run\'s event log once it is open, and from what it keeps before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kts-debug-explain-'));
    try {
      const path = join(dir, 'run.jsonl');
      const file = new FileJournalSink({ path });
      file.open({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 't', startTime: new Date(0).toISOString(), nodeName: 'n', configSha256: '', machinesSha256: '', segment: 1 });
      const journal = { records: 0, append: (r: JournalRecord) => file.append(r), flush: () => file.flush() };
      // The feed has forgotten record 1 (its ring holds one record); the file has not.
      const feed = new JournalFeed({ maxRecent: 1 });
      let open: string | null = null;
      const starter = debugServerStarter({
        directory: { list: () => [] }, views: { syncLoop: () => undefined }, feed, dropFeed: () => feed.clear(), journal,
      } as unknown as Parameters<typeof debugServerStarter>[0], pino({ level: 'silent' }), () => open);
      server = await starter.start('127.0.0.1:0');
      for (const r of [record(1), { ...record(2), payload: { other: true } }]) {
        journal.append(r);
        feed.append(r);
      }
      expect(await get(`http://${server.address}/debug/explain/prod/web`, () => false)).toMatch(/^no pod "prod\/web" in the log; the log knows no pod/);
      open = path;
      const body = await get(`http://${server.address}/debug/explain/prod/web?format=json`, () => false);
      expect((JSON.parse(body) as Story).pod).toEqual({ uid: 'u1', namespace: 'prod', name: 'web' });
      expect(body).not.toContain('hunter2');
      expect(JSON.parse(await get(`http://${server.address}/debug/journal/stats`, () => false))).toMatchObject({ path });
      await file.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
