/**
 * Time travel in the browser: `kubelet-ts visualize` on the fixture log (recorded by the real
 * binary), the page in replay mode, scrubbed to chosen records.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { PHASE_IDS } from '../../src/domain/phases.js';
import { CHROMIUM, screenshot, type WatchedPage } from './browser.js';
import { openReplayPage, type ReplayPage } from './replay-page.js';

const FIXTURE = 'test/fixtures/eventlogs/standalone-embedded.jsonl';
const { records } = readJournal(FIXTURE);

describeNeeding(chromiumPart(CHROMIUM), 'visualizer replay in Chromium (kubelet-ts visualize on the fixture log)', () => {
  let page: ReplayPage;
  let w: WatchedPage;

  beforeAll(async () => {
    page = await openReplayPage(FIXTURE, records);
    w = page.w;
    expect(page.printed).toMatch(/Visualizer listening on http:\/\/127\.0\.0\.1:\d+\//);
  }, 60_000);

  afterAll(async () => {
    await page?.close();
  });

  const scrubTo = (seq: number) => page.scrubTo(seq);
  const stateOf = (actor: string) => page.stateOf(actor);

  it('opens at the last record, where the recorded run had stopped, and loads nothing from elsewhere', async () => {
    const last = records.filter((r) => r.actor === 'supervisor' && r.type === 'state').at(-1)!.payload as { value: unknown; status: string };
    expect(last).toEqual({ value: 'stopped', status: 'done' });
    expect(await w.page.locator('body').getAttribute('data-mode')).toBe('replay');
    expect(await stateOf('supervisor')).toBe('stopped (done)');
    expect(await w.page.locator('#chart-supervisor g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')))).toEqual(['stopped']);
    expect(w.external).toEqual([]);
    expect(w.errors).toEqual([]);
    await screenshot(w.page, 'replay-end');
  });

  it('shows every actor as it was at the record the scrubber is moved to', async () => {
    // The first record where the supervisor entered run.nodeName: every later actor is not yet born.
    const at = records.find((r) => r.actor === 'supervisor' && r.type === 'state' && JSON.stringify((r.payload as { value: unknown }).value) === '{"run":"nodeName"}')!;
    await scrubTo(at.seq);
    expect(await stateOf('supervisor')).toBe('run.nodeName');
    expect(await w.page.locator('#states tr[data-actor="syncLoop"]').count()).toBe(0);
    expect(await w.page.locator('#chart-supervisor g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')).sort())).toEqual(['run', 'run.nodeName']);
    expect(await w.page.locator('#payload').textContent()).toContain('"nodeName"');
    await screenshot(w.page, 'replay-run-nodeName');

    // Running, before the stop: the supervisor's chart moves with the scrubber.
    const runningAt = records.find((r) => r.actor === 'supervisor' && r.type === 'state' && (r.payload as { value: unknown }).value === 'running')!;
    await scrubTo(runningAt.seq);
    expect(await w.page.locator('#chart-supervisor g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')))).toEqual(['running']);

    // A pod worker's first state, then step forward to its next record.
    const firstPod = records.find((r) => r.type === 'state' && r.name === 'podWorker')!;
    await scrubTo(firstPod.seq);
    // A compound state shows as its dotted path ({ syncing: 'waitingForVolumes' } → syncing.waitingForVolumes).
    const dotted = (v: unknown): string => (typeof v === 'string' ? v : Object.entries(v as Record<string, unknown>).map(([k, sub]) => `${k}.${dotted(sub)}`).join(','));
    expect(await stateOf(firstPod.actor)).toBe(dotted((firstPod.payload as { value: unknown }).value));
    await w.page.locator('#next').click();
    const next = records[records.findIndex((r) => r.seq === firstPod.seq) + 1]!;
    await w.page.waitForFunction((s) => document.querySelector('#record-head')?.textContent?.startsWith(`#${s} `), next.seq);
    await w.page.locator('#prev').click();
    await w.page.waitForFunction((s) => document.querySelector('#record-head')?.textContent?.startsWith(`#${s} `), firstPod.seq);
  });

  it('steps only through the records the filters let through', async () => {
    const podStates = records.filter((r) => r.type === 'state' && r.name === 'podWorker');
    const actor = podStates[0]!.actor;
    const mine = records.filter((r) => r.actor === actor && r.type === 'state');
    await scrubTo(mine[0]!.seq);
    await w.page.locator('#filter-actor').selectOption(actor);
    await w.page.locator('#filter-type').fill('state');
    await w.page.locator('#next').click();
    await w.page.waitForFunction((s) => document.querySelector('#record-head')?.textContent?.startsWith(`#${s} `), mine[1]!.seq);
    const listed = await w.page.locator('#stream li').evaluateAll((lis) => lis.map((li) => li.textContent ?? ''));
    expect(listed.length).toBeGreaterThan(0);
    for (const line of listed) expect(line).toContain(actor);
    await w.page.locator('#filter-actor').selectOption('');
    await w.page.locator('#filter-type').fill('');
  });

  it('draws every start-up phase as a bar, with the timeline of the record chosen', async () => {
    await scrubTo(records.at(-1)!.seq);
    await w.page.waitForSelector('#timeline .phase-row');
    const rows = await w.page.locator('#timeline .phase-row').evaluateAll((rs) => rs.map((r) => [r.getAttribute('data-phase'), r.getAttribute('data-outcome')]));
    expect(rows.map((r) => r[0])).toEqual([...PHASE_IDS]);
    for (const [, outcome] of rows) expect(outcome).toBe('ok');
    expect(await w.page.locator('#timeline .bar').count()).toBe(PHASE_IDS.length);
    expect(await w.page.locator('#timeline .critical').count()).toBe(PHASE_IDS.length);
    expect(await w.page.locator('#timeline .dominant').count()).toBeGreaterThan(0);
    expect(await w.page.locator('#timeline-summary').textContent()).toMatch(/running at \+\d+ms/);
    await screenshot(w.page, 'replay-timeline');

    // Back at run.nodeName, the later phases are not reached and the current one is in progress.
    const at = records.find((r) => r.actor === 'supervisor' && r.type === 'state' && JSON.stringify((r.payload as { value: unknown }).value) === '{"run":"nodeName"}')!;
    await scrubTo(at.seq);
    await w.page.waitForSelector('#timeline [data-phase="run.nodeName"][data-outcome="inProgress"]');
    expect(await w.page.locator('#timeline [data-phase="running"], #timeline [data-phase="run.sdNotify"][data-outcome="notReached"]').count()).toBe(1);
  });
});
