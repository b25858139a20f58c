/**
 * Time travel through a cluster-mode run (issue 13): `kubelet-ts visualize` on the cluster fixture,
 * scrubbed into the API server outage it recorded: the lease backing off after a failed renewal,
 * the failure's error in the record pane, then the renewal that succeeded after the outage.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import { CHROMIUM, screenshot, type WatchedPage } from './browser.js';
import { openReplayPage, type ReplayPage } from './replay-page.js';

const FIXTURE = 'test/fixtures/eventlogs/cluster-embedded.jsonl';
const { records } = readJournal(FIXTURE);

const leaseState = (value: string) => (r: JournalRecord) => r.actor === 'nodeLease' && r.type === 'state' && (r.payload as { value: unknown }).value === value;
const renewal = (ok: boolean) => (r: JournalRecord) =>
  r.actor === 'nodeLease' && r.kind === 'input' && r.name === 'xstate.done.actor.renewLease' && (r.payload as { output: { ok: boolean } }).output.ok === ok;

describeNeeding(chromiumPart(CHROMIUM), 'visualizer replay of the cluster fixture in Chromium', () => {
  let page: ReplayPage;
  let w: WatchedPage;

  beforeAll(async () => {
    page = await openReplayPage(FIXTURE, records);
    w = page.w;
  }, 60_000);

  afterAll(async () => {
    await page?.close();
  });

  const scrubTo = (seq: number) => page.scrubTo(seq);
  const stateOf = (actor: string) => page.stateOf(actor);

  it('shows the cluster-mode actors the run had: node status, lease, status manager', async () => {
    for (const actor of ['nodeStatus', 'nodeLease', 'statusManager']) expect(await w.page.locator(`#states tr[data-actor="${actor}"]`).count(), actor).toBe(1);
    expect(w.errors).toEqual([]);
    expect(w.external).toEqual([]);
  });

  it('scrubs into the outage: a failed renewal with its error, the lease backing off, then renewed after the outage', async () => {
    const failed = records.find(renewal(false))!;
    await scrubTo(failed.seq);
    expect(await w.page.locator('#payload').textContent()).toContain('KLT_ERR_API_UNAVAILABLE');

    const backingOff = records.find((r) => r.seq > failed.seq && leaseState('backingOff')(r))!;
    await scrubTo(backingOff.seq);
    expect(await stateOf('nodeLease')).toBe('backingOff');
    await screenshot(w.page, 'replay-cluster-outage');

    const renewedAfter = records.find((r) => r.seq > backingOff.seq && renewal(true)(r))!;
    const waitingAgain = records.find((r) => r.seq > renewedAfter.seq && leaseState('waiting')(r))!;
    await scrubTo(waitingAgain.seq);
    expect(await stateOf('nodeLease')).toBe('waiting');
    expect(await w.page.locator('#chart-nodeLease g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')))).toEqual(['waiting']);
  });
});
