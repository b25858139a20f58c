/**
 * The pod story panel in Chromium: on `kubelet-ts visualize` of the fixture log, selecting a pod's
 * worker shows its story and a cited record moves the scrubber there; on a live daemon (the real
 * binary, embedded runtime, small journal segments), `/debug/explain` tells a running pod's story
 * from the journal's files across rotations, and the panel marks a cited record in the journal list.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { explainPod } from '../../src/domain/explain/explain.js';
import type { Story } from '../../src/domain/explain/story.js';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { until, type StaticPodKubelet } from '../support/daemon.js';
import { CHROMIUM, screenshot, type WatchedPage } from './browser.js';
import { openLivePage, type LivePage } from './live-page.js';
import { openReplayPage, type ReplayPage } from './replay-page.js';

const FIXTURE = 'test/fixtures/eventlogs/standalone-embedded.jsonl';
const { records } = readJournal(FIXTURE);

describeNeeding(chromiumPart(CHROMIUM), 'pod story panel in Chromium', () => {
  describe('replay of the fixture log', () => {
    let page: ReplayPage;
    let w: WatchedPage;
    const story = explainPod(records, 'default/crash-fixture-node') as Story;

    beforeAll(async () => {
      page = await openReplayPage(FIXTURE, records);
      w = page.w;
    }, 60_000);
    afterAll(async () => {
      await page?.close();
    });

    it('shows the selected pod\'s story, each line with its cited records', async () => {
      expect(story.lines.length).toBeGreaterThan(1);
      await w.page.locator(`#tree li[data-actor="pod:${story.pod.uid}"] > button`).click();
      await w.page.waitForSelector('#story li .cite');
      expect(await w.page.locator('#story-pod').textContent()).toBe(`— default/crash-fixture-node (uid ${story.pod.uid})`);
      const lines = await w.page.locator('#story li').evaluateAll((lis) => lis.map((li) => ({
        family: li.getAttribute('data-family'),
        cites: [...li.querySelectorAll('.cite')].map((a) => Number(a.getAttribute('data-seq'))),
        text: li.textContent,
      })));
      expect(lines.map((l) => ({ family: l.family, cites: l.cites }))).toEqual(story.lines.map((l) => ({ family: l.family, cites: [...l.cites] })));
      story.lines.forEach((l, i) => expect(lines[i]!.text).toContain(l.text));
      expect(w.errors).toEqual([]);
      await screenshot(w.page, 'story-replay');
    });

    it('moves the scrubber, the record pane and the journal list to a cited record', async () => {
      const seq = story.lines[0]!.cites[0]!;
      expect(seq).not.toBe(records.at(-1)!.seq);
      await w.page.locator(`#story .cite[data-seq="${seq}"]`).first().click();
      await w.page.waitForFunction((s) => document.querySelector('#record-head')?.textContent?.startsWith(`#${s} `), seq);
      expect(Number(await w.page.locator('#scrubber').inputValue())).toBe(records.findIndex((r) => r.seq === seq));
      expect(await w.page.locator('#stream li.current').getAttribute('data-seq')).toBe(String(seq));
      // The panel stays on the pod while the scrubber moves.
      expect(await w.page.locator('#story-pod').textContent()).toContain('crash-fixture-node');
      await screenshot(w.page, 'story-replay-jumped');
    });
  });

  describe('a live daemon', () => {
    const NODE = 'story-node';
    let live: LivePage | undefined;
    let k: StaticPodKubelet;
    let w: WatchedPage;

    beforeAll(async () => {
      // Small segments: the journal rotates while the pod starts, so its story spans several files.
      live = await openLivePage({ nodeName: NODE, prefix: 'kts-story-', env: { KUBELET_TS_EVENT_LOG_SEGMENT_BYTES: String(96 * 1024) } });
      ({ k, w } = live);
    }, 60_000);
    afterAll(async () => {
      await live?.close();
    }, 60_000);

    const url = () => `http://${k.debug}/debug/explain/default/told-${NODE}`;
    let story: Story;

    it('answers /debug/explain with a running pod\'s story, as text or JSON', async () => {
      const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'told' }, spec: { containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'while :; do sleep 1; done'] }] } }; // idles: the test waits for it Running
      writeFileSync(join(k.manifests, 'told.json'), JSON.stringify(manifest));
      const text = await until('the story of a started container', async () => {
        const res = await fetch(url());
        const body = await res.text();
        return res.status === 200 && body.includes('container main started') ? body : undefined;
      }, 30_000, () => k.stderr());
      expect(text).toMatch(new RegExp(`^pod default/told-${NODE} \\(uid [0-9a-f]+\\)\\n`));
      expect(text).toMatch(/container main started \(\w+\) {2}\[#\d+( #\d+)*\]/);
      story = (await (await fetch(`${url()}?format=json`)).json()) as Story;
      expect(story.pod.name).toBe(`told-${NODE}`);
      const notFound = await fetch(`http://${k.debug}/debug/explain/default/told`);
      expect(notFound.status).toBe(404);
      expect(await notFound.text()).toContain(`closest: default/told-${NODE}`);
    }, 60_000);

    it('shows the story of the selected pod worker and marks a cited record in the journal list', async () => {
      const worker = `pod:${story.pod.uid}`;
      await until('the pod worker in the tree', async () => (await w.page.locator(`#tree li[data-actor="${worker}"]`).count()) > 0, 30_000, () => k.stderr());
      await w.page.locator(`#tree li[data-actor="${worker}"] > button`).click();
      await w.page.waitForSelector('#story li .cite', { timeout: 15_000 });
      expect(await w.page.locator('#story-pod').textContent()).toContain(`default/told-${NODE}`);
      expect(await w.page.locator('#story').textContent()).toContain('container main started');
      // The newest record the story cites is still in the page's list of the latest records.
      const cites = await w.page.locator('#story .cite').evaluateAll((as) => as.map((a) => Number(a.getAttribute('data-seq'))));
      const newest = Math.max(...cites);
      await w.page.locator(`#story .cite[data-seq="${newest}"]`).first().click();
      expect(await w.page.locator('#stream li.current').getAttribute('data-seq')).toBe(String(newest));
      expect(await w.page.locator('#story-note').isHidden()).toBe(true);
      await screenshot(w.page, 'story-live');
      // One the list no longer holds (emptied here, as a long-open page's list moves on): the page says where to look.
      await w.page.evaluate(() => { document.getElementById('stream')!.innerHTML = ''; });
      await w.page.locator(`#story .cite[data-seq="${newest}"]`).first().click();
      expect(await w.page.locator('#story-note').textContent()).toContain(`kubelet-ts replay LOG --from ${newest}`);
      expect(w.errors).toEqual([]);
    }, 60_000);

    it('still tells the story from its start once the journal has rotated past it', async () => {
      const events = join(k.root, 'events');
      const rotated = () => readdirSync(events).filter((n) => /\.jsonl\.\d+$/.test(n));
      const firstCite = story.lines[0]!.cites[0]!;
      await until('a rotation past the pod\'s first cited record', () => firstSeqOfCurrentSegment(events) > firstCite, 60_000, () => `segments: ${rotated().join(', ')}`);
      const again = (await (await fetch(url(), { headers: { accept: 'application/json' } })).json()) as Story;
      expect(again.pod).toEqual(story.pod);
      expect(again.lines[0]).toEqual(story.lines[0]);
    }, 90_000);
  });
});

/** The seq of the first record in the run's current segment (`latest.jsonl`, line 2). */
function firstSeqOfCurrentSegment(events: string): number {
  const second = readFileSync(join(events, 'latest.jsonl'), 'utf8').split('\n')[1];
  try {
    return second ? (JSON.parse(second) as { seq: number }).seq : 0;
  } catch {
    return 0;
  }
}
