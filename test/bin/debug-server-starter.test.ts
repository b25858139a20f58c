import { request } from 'node:http';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { debugServerStarter } from '../../src/bin/server-starters.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
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
    } as unknown as Parameters<typeof debugServerStarter>[0], pino({ level: 'silent' }));
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
});
