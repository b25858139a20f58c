/**
 * The visualizer against a live daemon: the real binary (embedded runtime, a static pod
 * directory, `--debug-address=127.0.0.1:0`), the page in headless Chromium.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { until, type StaticPodKubelet } from '../support/daemon.js';
import { CHROMIUM, screenshot, type WatchedPage } from './browser.js';
import { openLivePage, type LivePage } from './live-page.js';

const NODE = 'viz-node';

describeNeeding(chromiumPart(CHROMIUM), 'visualizer on a live daemon in Chromium', () => {
  let live: LivePage | undefined;
  let k: StaticPodKubelet;
  let w: WatchedPage;
  const stderr = () => k.stderr();

  beforeAll(async () => {
    live = await openLivePage({ nodeName: NODE, prefix: 'kts-viz-' });
    ({ k, w } = live);
  }, 60_000);

  afterAll(async () => {
    await live?.close();
  }, 60_000);

  it('draws the supervisor chart with its active state highlighted, loading nothing from elsewhere', async () => {
    await w.page.waitForSelector('#chart-supervisor g.state.active[data-path="running"]', { timeout: 30_000 });
    expect(await w.page.locator('#chart-supervisor g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')))).toEqual(['running']);
    // The tree: supervisor → its subsystems → theirs.
    await w.page.waitForSelector('#tree li[data-actor="supervisor"] li[data-actor="syncLoop"] li[data-actor="pleg"]');
    expect(await w.page.locator('#tree li[data-actor="supervisor"] > button').textContent()).toBe('supervisor');
    expect(w.external).toEqual([]);
    expect(w.errors).toEqual([]);
    await screenshot(w.page, 'live-running');
  });

  it('shows a new pod worker when a static pod is added, and follows it through its states', async () => {
    // A container that ignores SIGTERM: its kill lasts the whole grace period (2 s), long enough to
    // be seen by a page that polls twice a second.
    const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'viz' }, spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap '' TERM; while :; do sleep 1; done"] }] } };
    writeFileSync(join(k.manifests, 'viz.json'), JSON.stringify(manifest));
    const worker = await until('a pod worker in the tree', async () => w.page.locator('#tree li[data-logic="podWorker"]').first().getAttribute('data-actor'), 30_000, stderr);
    expect(worker).toMatch(/^pod:/);
    await w.page.locator(`#tree li[data-actor="${worker}"] > button`).click();
    // One read in the page: a locator's getAttribute waits for its element, so a worker removed between
    // a count() and that read would stall the poll past its deadline instead of reading "gone".
    let connection: string | null = null;
    const valueOf = async () => {
      const seen = await w.page.evaluate((id) => {
        const li = [...document.querySelectorAll('#tree li')].find((l) => l.getAttribute('data-actor') === id);
        return { value: li ? li.getAttribute('data-value') : 'gone', connection: document.getElementById('conn')?.textContent ?? null };
      }, worker);
      connection = seen.connection;
      return seen.value;
    };
    const pageAndStderr = () => `page connection: ${connection}\n${stderr()}`;
    await until('the worker idle with its pod running', async () => (await valueOf()) === 'idle', 30_000, pageAndStderr);
    expect(await w.page.locator('#chart-podWorker').getAttribute('data-actor')).toBe(worker);
    expect(await w.page.locator('#chart-podWorker g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')))).toEqual(['idle']);
    await screenshot(w.page, 'live-pod-worker-idle');

    // Removing the manifest makes the worker kill the pod: the page follows it into terminating.
    unlinkSync(join(k.manifests, 'viz.json'));
    await until('the worker killing', async () => (await valueOf()) === 'terminating.killing', 10_000, pageAndStderr);
    expect(await w.page.locator('#chart-podWorker g.state.active').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-path')).sort())).toEqual(['terminating', 'terminating.killing']);
    await screenshot(w.page, 'live-pod-worker-killing');
    await until('the worker past the kill', async () => {
      const v = await valueOf();
      return v !== 'terminating.killing' ? v : undefined;
    }, 15_000, pageAndStderr);
  }, 60_000);

  it('shows itself disconnected when a poll goes unanswered, and live again on the next answer', async () => {
    await w.page.waitForSelector('#conn:text-is("live")', { timeout: 10_000 });
    // The next poll is held and never answered; the ones after it go through.
    let held = false;
    await w.page.route('**/debug/actors', async (route) => {
      if (held) return route.fallback();
      held = true;
    });
    try {
      await w.page.waitForSelector('#conn:text-is("disconnected")', { timeout: 15_000 });
      await w.page.waitForSelector('#conn:text-is("live")', { timeout: 15_000 });
    } finally {
      await w.page.unroute('**/debug/actors');
    }
    expect(held).toBe(true);
  }, 40_000);
});
