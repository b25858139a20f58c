/**
 * The page comes up when a chart's first layout fails (as one that outlasts the server's request
 * timeout on a busy node does): it asks again, and the server, which forgets a failed layout, lays
 * it out anew.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumPart, describeNeeding } from '../support/real-parts.js';
import { startDebugServer, type DebugServer } from '../../src/adapters/debug-server/server.js';
import { renderInProcess } from '../../src/adapters/visualizer/chart-renderer.js';
import { machineGraphs } from '../../src/machines/index.js';
import { CHROMIUM, launchBrowser, openPage } from './browser.js';

describeNeeding(chromiumPart(CHROMIUM), 'visualizer charts whose layout fails once, in Chromium', () => {
  let browser: Browser;
  let server: DebugServer;
  const attempts = new Map<string, number>();

  beforeAll(async () => {
    server = await startDebugServer('127.0.0.1:0', {
      actors: () => [],
      pods: () => ({ pods: [] }),
      journal: () => ({ path: null, records: 0 }),
      visualizer: {
        mode: 'live',
        graphs: machineGraphs(),
        prerendered: () => undefined,
        render: async (graph) => {
          const n = (attempts.get(graph.machine) ?? 0) + 1;
          attempts.set(graph.machine, n);
          if (n === 1) throw new Error(`layout of ${graph.machine} failed`);
          return renderInProcess(graph);
        },
      },
    });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('draws every chart after asking again for each', async () => {
    const w = await openPage(browser, `http://${server.address}/`);
    const drawn = await w.page.locator('.chart svg').count();
    expect(drawn).toBe(machineGraphs().length);
    for (const g of machineGraphs()) expect(attempts.get(g.machine)).toBe(2);
    expect(w.errors).toEqual([]);
  }, 90_000);
});
