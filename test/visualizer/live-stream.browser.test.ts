/**
 * The live page's journal side in Chromium: a debug server with a journal feed (as the daemon
 * wires it), records appended as the kubelet would append them; the page lists them from the
 * event stream and draws the start-up timeline from /debug/startup as phases complete.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { JournalFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { startDebugServer, type DebugServer } from '../../src/adapters/debug-server/server.js';
import { machineGraphs } from '../../src/machines/index.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { PHASE_IDS } from '../../src/domain/phases.js';
import { CHROMIUM, launchBrowser, openPage, screenshot, type WatchedPage } from './browser.js';

const FIXTURE = 'test/fixtures/eventlogs/standalone-embedded.jsonl';
const { records } = readJournal(FIXTURE);

describeNeeding(chromiumPart(CHROMIUM), 'visualizer live journal in Chromium', () => {
  let browser: Browser;
  let server: DebugServer;
  let w: WatchedPage;
  const feed = new JournalFeed();

  beforeAll(async () => {
    server = await startDebugServer('127.0.0.1:0', {
      actors: () => [],
      pods: () => ({ pods: [] }),
      journal: () => ({ path: null, records: 0 }),
      visualizer: { mode: 'live', graphs: machineGraphs(), feed },
    });
    browser = await launchBrowser();
    w = await openPage(browser, `http://${server.address}/`);
    // The stream is open once the page has asked for it.
    await vi.waitUntil(() => feed.subscribers > 0, { timeout: 10_000 });
    expect(feed.subscribers).toBe(1);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists records as they are appended and draws the timeline as phases complete', async () => {
    const half = records.findIndex((r) => r.actor === 'supervisor' && JSON.stringify((r.payload as { value?: unknown }).value) === '{"run":"clients"}');
    for (const r of records.slice(0, half + 1)) feed.append(r);
    await w.page.waitForSelector(`#stream li[data-seq="${records[half]!.seq}"]`);
    await w.page.waitForSelector('#timeline [data-phase="run.clients"][data-outcome="inProgress"]', { timeout: 10_000 });
    expect(await w.page.locator('#timeline [data-phase="run.nodeName"]').getAttribute('data-outcome')).toBe('ok');
    expect(await w.page.locator('#timeline [data-phase="run.auth"]').getAttribute('data-outcome')).toBe('notReached');

    for (const r of records.slice(half + 1)) feed.append(r);
    await w.page.waitForSelector(`#stream li[data-seq="${records.at(-1)!.seq}"]`);
    await w.page.waitForSelector('#timeline [data-phase="run.sdNotify"][data-outcome="ok"]', { timeout: 10_000 });
    const phases = await w.page.locator('#timeline .phase-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-phase')));
    expect(phases).toEqual([...PHASE_IDS]);
    // newest first, every record once, as many as the list keeps (STREAM_MAX_ITEMS in client-script.ts)
    const seqs = await w.page.locator('#stream li').evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
    expect(seqs).toEqual(records.map((r) => r.seq).reverse().slice(0, 300));
    expect(await w.page.locator('#dropped').isHidden()).toBe(true);
    expect(w.external).toEqual([]);
    expect(w.errors).toEqual([]);
    await screenshot(w.page, 'live-journal-timeline');
  });
});
