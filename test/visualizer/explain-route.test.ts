/**
 * `/debug/explain` on a recorded log (what `kubelet-ts visualize LOG` serves) and on a journal read
 * from its files (a live node's, past the visualizer's memory and across a rotation).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDebugApp } from '../../src/adapters/debug-server/server.js';
import { JournalFeed, staticFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { liveExplainer } from '../../src/adapters/debug-server/journal-history.js';
import { FileJournalSink } from '../../src/adapters/journal-file/file-sink.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { explainPod } from '../../src/domain/explain/explain.js';
import { renderStory } from '../../src/domain/explain/render-story.js';
import type { Story } from '../../src/domain/explain/story.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../../src/domain/journal/record.js';
import { machineGraphs } from '../../src/machines/index.js';

const FIXTURE = 'test/fixtures/eventlogs/standalone-embedded.jsonl';
const POD = 'default/crash-fixture-node';
const base = { actors: () => [], pods: () => ({ pods: [] }), journal: () => ({ path: null, records: 0 }) };

function replayApp() {
  const { records } = readJournal(FIXTURE);
  return { records, app: buildDebugApp({ ...base, visualizer: { mode: 'replay', graphs: machineGraphs(), feed: staticFeed(records) } }) };
}

describe('/debug/explain on a recorded log', () => {
  it('tells the story as `kubelet-ts explain` does, as text by default', async () => {
    const { records, app } = replayApp();
    const res = await app.inject({ url: `/debug/explain/${POD}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toBe(renderStory(explainPod(records, POD) as Story));
    expect(res.body).toMatch(/^pod default\/crash-fixture-node \(uid [0-9a-f]+\)\n/);
    expect(res.body).toMatch(/container main started \(\w+\) {2}\[#\d+\]/);
  });

  it('answers JSON for ?format=json and for a client that accepts JSON; the lines cite records of the log', async () => {
    const { records, app } = replayApp();
    const byQuery = await app.inject({ url: `/debug/explain/${POD}?format=json` });
    const byAccept = await app.inject({ url: `/debug/explain/${POD}`, headers: { accept: 'application/json' } });
    expect(byQuery.headers['content-type']).toMatch(/application\/json/);
    expect(byAccept.json()).toEqual(byQuery.json());
    const story = byQuery.json() as Story;
    expect(story.pod).toMatchObject({ namespace: 'default', name: 'crash-fixture-node' });
    expect(story.lines.length).toBeGreaterThan(1);
    const seqs = new Set(records.map((r) => r.seq));
    for (const line of story.lines) for (const seq of line.cites) expect(seqs.has(seq)).toBe(true);
    // ?format=text wins over the Accept header
    const text = await app.inject({ url: `/debug/explain/${POD}?format=text`, headers: { accept: 'application/json' } });
    expect(text.headers['content-type']).toMatch(/text\/plain/);
  });

  it('takes a uid or a lone name as the command does (the page asks by uid)', async () => {
    const { app } = replayApp();
    const story = (await app.inject({ url: `/debug/explain/${POD}?format=json` })).json() as Story;
    const byUid = await app.inject({ url: `/debug/explain/${story.pod.uid}?format=json` });
    expect(byUid.json()).toEqual(story);
    expect((await app.inject({ url: '/debug/explain/crash-fixture-node?format=json' })).json()).toEqual(story);
  });

  it('is a 404 naming the closest pods for one the log does not know', async () => {
    const { app } = replayApp();
    const text = await app.inject({ url: '/debug/explain/default/crash-fixture' });
    expect(text.statusCode).toBe(404);
    expect(text.body).toMatch(/^no pod "default\/crash-fixture" in the log; closest: default\/crash-fixture-node/);
    const json = await app.inject({ url: '/debug/explain/default/crash-fixture?format=json' });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ notFound: 'default/crash-fixture', closest: expect.arrayContaining(['default/crash-fixture-node']) });
    expect((await app.inject({ url: `/debug/explain/${POD}?format=yaml` })).statusCode).toBe(400);
  });

  it('says so when no journal is connected', async () => {
    const res = await buildDebugApp(base).inject({ url: `/debug/explain/${POD}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatch(/journal is not connected/);
  });
});

describe('/debug/explain on a live journal (its files)', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('tells the whole story from the files, past what the feed keeps in memory and across rotated segments', async () => {
    const { records } = readJournal(FIXTURE);
    dir = mkdtempSync(join(tmpdir(), 'kts-explain-route-'));
    const path = join(dir, 'run.jsonl');
    // Small segments: the fixture's records land in several files.
    const sink = new FileJournalSink({ path, maxSegmentBytes: 64 * 1024, maxSegments: 100 });
    sink.open({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 't', startTime: new Date(0).toISOString(), nodeName: 'fixture-node', configSha256: '', machinesSha256: '', segment: 1 });
    // The feed keeps the last 20 records only, as the daemon's keeps its last 5,000.
    const feed = new JournalFeed({ maxRecent: 20, maxStartup: 0 });
    for (const r of records) {
      sink.append(r);
      feed.append(r);
    }
    const app = buildDebugApp({
      ...base,
      visualizer: { mode: 'live', graphs: [], feed },
      explain: liveExplainer({ path: () => path, flush: () => sink.flush(), kept: feed }),
    });
    const res = await app.inject({ url: `/debug/explain/${POD}?format=json` });
    await sink.close();
    expect(res.statusCode).toBe(200);
    expect(readdirSync(dir).filter((n) => n.startsWith('run.jsonl.')).length).toBeGreaterThan(0);
    const story = res.json() as Story;
    expect(story).toEqual(JSON.parse(JSON.stringify(explainPod(records, POD))));
    // Its first line cites a record long gone from the feed's memory.
    const oldestKept = feed.history()[0]!.seq;
    expect(story.lines[0]!.cites[0]).toBeLessThan(oldestKept);
  });

  it('falls back to the records kept in memory when the journal has no file', async () => {
    const { records } = readJournal(FIXTURE);
    const feed = new JournalFeed();
    records.forEach((r: JournalRecord) => feed.append(r));
    const app = buildDebugApp({ ...base, explain: liveExplainer({ path: () => null, flush: async () => {}, kept: feed }) });
    const res = await app.inject({ url: `/debug/explain/${POD}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(renderStory(explainPod(records, POD) as Story));
  });

  it('reads the files on a worker thread as the daemon does (from the compiled tree, where the worker is built)', async () => {
    const compiled = pathToFileURL(resolve('dist/src/adapters/debug-server/journal-history.js')).href;
    const { liveExplainer: fromDist } = (await import(compiled)) as { liveExplainer: typeof liveExplainer };
    const kept = new JournalFeed();
    const explain = fromDist({ path: () => FIXTURE, flush: async () => {}, kept });
    const { records } = readJournal(FIXTURE);
    expect(await explain(POD)).toEqual(JSON.parse(JSON.stringify(explainPod(records, POD))));
    expect(await explain('default/nope')).toMatchObject({ notFound: 'default/nope' });
    // A log that is gone: the worker's error comes back as a rejection naming the file.
    const gone = fromDist({ path: () => '/nonexistent/run.jsonl', flush: async () => {}, kept });
    await expect(gone(POD)).rejects.toThrow(/\/nonexistent\/run\.jsonl does not exist/);
  });
});
