/**
 * The visualizer on a live daemon, opened in Chromium: the real binary (embedded runtime, a static
 * pod directory, its debug server on a free loopback port) and its page, as the live browser tests
 * share them. `close` stops both.
 */
import type { Browser } from 'playwright-core';
import { startStaticPodKubelet, type StaticPodKubelet } from '../support/daemon.js';
import { launchBrowser, openPage, type WatchedPage } from './browser.js';

export interface LivePage {
  k: StaticPodKubelet;
  w: WatchedPage;
  close(): Promise<void>;
}

export async function openLivePage(opts: { nodeName: string; prefix: string; env?: Record<string, string> }): Promise<LivePage> {
  const k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: opts.nodeName, prefix: opts.prefix, ...(opts.env ? { env: opts.env } : {}) });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const opened = browser;
    const w = await openPage(opened, `http://${k.debug}/`);
    return {
      k, w,
      async close() {
        await opened.close();
        await k.dispose();
      },
    };
  } catch (err) {
    await browser?.close();
    await k.dispose();
    throw err;
  }
}
