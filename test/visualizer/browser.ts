/**
 * Headless Chromium for the visualizer's browser tests: Debian's chromium package driven by
 * playwright-core (which downloads no browser). The suites need it through
 * test/support/real-parts.ts: skipped, saying so, without it locally; failing without it in CI.
 * Every request the page makes is checked: anything that is not loopback is aborted and recorded.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.KUBELET_IT_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = 'test-artifacts/visualizer';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface WatchedPage {
  page: Page;
  /** Requests to anything but loopback (aborted). */
  external: string[];
  /** Errors thrown by the page's script. */
  errors: string[];
}

export async function openPage(browser: Browser, url: string): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const external: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === '127.0.0.1' || host === 'localhost' || host === '[::1]') return route.continue();
    external.push(route.request().url());
    return route.abort();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  try {
    await page.waitForSelector('body[data-charts="ready"]', { timeout: 30_000 });
  } catch (err) {
    // Say what the page was waiting for: the connection line, charts still being laid out, script errors.
    const state = await page.evaluate(() => ({
      conn: document.getElementById('conn')?.textContent ?? null,
      pending: [...document.querySelectorAll('.chart')].filter((c) => c.querySelector('svg') === null).map((c) => c.getAttribute('data-machine')),
    })).catch((e: Error) => ({ unreadable: e.message }));
    throw new Error(`${(err as Error).message}\npage: ${JSON.stringify(state)}; script errors: ${JSON.stringify(errors)}`);
  }
  return { page, external, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
}
