/**
 * `kubelet-ts visualize LOG` in replay mode, opened in Chromium: what the time-travel browser tests
 * share. `scrubTo` moves the scrubber to a record as a person dragging it would.
 */
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import type { DebugServer } from '../../src/adapters/debug-server/server.js';
import { runVisualizeCommand } from '../../src/bin/commands/visualize.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import { launchBrowser, openPage, type WatchedPage } from './browser.js';

export interface ReplayPage {
  w: WatchedPage;
  /** What the command printed (its listening line). */
  printed: string;
  scrubTo(seq: number): Promise<void>;
  stateOf(actor: string): Promise<string | null>;
  /** Closes the browser and ends the command, which must exit 0. */
  close(): Promise<void>;
}

export async function openReplayPage(log: string, records: readonly JournalRecord[]): Promise<ReplayPage> {
  let printed = '';
  let server!: DebugServer;
  let stop: () => void = () => {};
  let done!: Promise<number>;
  await new Promise<void>((resolve) => {
    done = runVisualizeCommand([log, '--listen', '127.0.0.1:0'], { stdout: (s) => (printed += s), stderr: (s) => (printed += s) }, {
      until: (s) => {
        server = s;
        resolve();
        return new Promise<void>((r) => (stop = r));
      },
    });
  });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const w = await openPage(browser, `http://${server.address}/`);
    await w.page.waitForSelector('#states tbody tr');
    const opened = browser;
    return {
      w,
      printed,
      async scrubTo(seq) {
        const index = records.findIndex((r) => r.seq === seq);
        await w.page.locator('#scrubber').fill(String(index));
        await w.page.waitForFunction((s) => document.querySelector('#record-head')?.textContent?.startsWith(`#${s} `), seq);
      },
      stateOf: (actor) => w.page.locator(`#states tr[data-actor="${actor}"] td.value`).textContent(),
      async close() {
        await opened.close();
        stop();
        expect(await done).toBe(0);
      },
    };
  } catch (err) {
    await browser?.close();
    stop();
    throw err;
  }
}
