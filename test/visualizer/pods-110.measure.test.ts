/**
 * Run with KUBELET_VIZ_MEASURE=1 (vitest.config.ts excludes *.measure.test.ts otherwise) and Chromium.
 */
/**
 * The load measurement: 110 static pods start at once on the real binary (embedded
 * runtime), once with the visualizer page open in Chromium and once without; pod start latency
 * (manifest written → pod Running on /debug/pods) p50/p99 for each, the page's update rate while
 * they start, and the journal stream's throughput to a page (the run's own records pushed through
 * a JournalFeed as fast as the kubelet could append them). Slow and machine-dependent, so
 * registered only with KUBELET_VIZ_MEASURE=1; it prints its numbers and checks only sanity bounds.
 *
 *   KUBELET_VIZ_MEASURE=1 npx vitest run test/visualizer/pods-110.measure.test.ts
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { JournalFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { startDebugServer } from '../../src/adapters/debug-server/server.js';
import { machineGraphs } from '../../src/machines/index.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { launchBrowser, openPage } from './browser.js';
import { removePods, startStaticPodKubelet, until } from '../support/daemon.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const PODS = 110;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
}

interface RunResult { startMs: number[]; pageUpdatesPerSec: number | null; eventLog: string; dir: string }

async function startPods(withPage: boolean): Promise<RunResult> {
  const k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: 'viz110', config: ['maxPods: 200'], prefix: 'kts-viz110-' });
  const { dir, manifests, root, debug } = k;
  const wait = (what: string, f: () => Promise<boolean> | boolean, ms = 120_000) => until(what, f, ms, k.stderr);
  await wait('running', async () => ((await (await fetch(`http://${debug}/debug/actors`)).json()) as { actors: { id: string; value: unknown }[] }).actors.some((a) => a.id === 'supervisor' && a.value === 'running'));
  const browser = withPage ? await launchBrowser() : null;
  const page = browser ? (await openPage(browser, `http://${debug}/`)).page : null;
  const updates0 = page ? await page.evaluate(() => (window as unknown as { __visualizer: { updates: number } }).__visualizer.updates) : 0;
  const written = Date.now();
  for (let i = 0; i < PODS; i++) {
    writeFileSync(join(manifests, `p${i}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] }] } }));
  }
  const started = new Map<string, number>();
  await wait('110 pods running', async () => {
    const body = (await (await fetch(`http://${debug}/debug/pods`)).json()) as { pods: { name: string; status: { phase?: string } | null }[] };
    for (const p of body.pods) if (p.status?.phase === 'Running' && !started.has(p.name)) started.set(p.name, Date.now() - written);
    return started.size >= PODS;
  }, 180_000);
  const elapsed = (Date.now() - written) / 1000;
  const updates = page ? (await page.evaluate(() => (window as unknown as { __visualizer: { updates: number } }).__visualizer.updates)) - updates0 : 0;
  await browser?.close();
  await k.stop();
  await removePods({ endpoint: 'embedded', rootDir: root });
  const events = join(root, 'events');
  return { startMs: [...started.values()], pageUpdatesPerSec: page ? updates / elapsed : null, eventLog: join(events, readdirSync(events)[0]!), dir };
}

{
  describe('110 pods with the visualizer open against closed (measurement)', () => {
    it('keeps pod start latency and reports the page and stream rates', async () => {
      const closed = await startPods(false);
      const open = await startPods(true);

      // The stream: this run's own records, appended back to back, to one page.
      const { records } = readJournal(open.eventLog);
      const feed = new JournalFeed();
      const server = await startDebugServer('127.0.0.1:0', { actors: () => [], pods: () => ({ pods: [] }), journal: () => ({ path: null, records: 0 }), visualizer: { mode: 'live', graphs: machineGraphs(), feed } });
      const browser = await launchBrowser();
      const { page } = await openPage(browser, `http://${server.address}/`);
      await vi.waitUntil(() => feed.subscribers > 0, { timeout: 10_000 });
      const t0 = performance.now();
      for (const r of records) feed.append(r);
      const appendMs = performance.now() - t0;
      const last = records.at(-1)!.seq;
      await page.waitForFunction(([n]) => {
        const v = (window as unknown as { __visualizer: { streamCount: number; dropped: number } }).__visualizer;
        return v.streamCount + v.dropped >= n;
      }, [records.length] as const, { timeout: 60_000 });
      const streamMs = performance.now() - t0;
      const got = await page.evaluate(() => (window as unknown as { __visualizer: { streamCount: number; dropped: number } }).__visualizer);
      await browser.close();
      await server.close();

      const row = (name: string, r: RunResult) => `${name}: p50 ${quantile(r.startMs, 0.5)} ms, p99 ${quantile(r.startMs, 0.99)} ms, max ${Math.max(...r.startMs)} ms`;
      console.log([
        `110 static pods, embedded runtime, pod start = manifest written → Running on /debug/pods (100 ms polling)`,
        row('page closed', closed),
        row('page open  ', open),
        `page updates while starting: ${open.pageUpdatesPerSec?.toFixed(1)} /s (actors polled every 500 ms)`,
        `journal stream: ${records.length} records (last seq ${last}) appended in ${appendMs.toFixed(1)} ms (${(records.length / appendMs * 1000).toFixed(0)}/s on the kubelet side); page received ${got.streamCount}, dropped ${got.dropped}, in ${streamMs.toFixed(0)} ms (${(got.streamCount / streamMs * 1000).toFixed(0)} records/s)`,
      ].join('\n'));
      rmSync(closed.dir, { recursive: true, force: true });
      rmSync(open.dir, { recursive: true, force: true });
      expect(closed.startMs).toHaveLength(PODS);
      expect(open.startMs).toHaveLength(PODS);
      expect(got.streamCount + got.dropped).toBe(records.length);
    }, 600_000);
  });
}
