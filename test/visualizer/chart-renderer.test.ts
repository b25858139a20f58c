/**
 * The layout worker, as the daemon runs it: from the compiled tree (dist/, built by `npm test`
 * before vitest runs), so the worker file exists; the sources fall back to in-process layout.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createChartRenderer, renderInProcess } from '../../src/adapters/visualizer/chart-renderer.js';
import { machineGraphs } from '../../src/machines/index.js';

const compiled = pathToFileURL(resolve('dist/src/adapters/visualizer/chart-renderer.js')).href;

describe('chart renderer', () => {
  it('lays the supervisor out on a worker thread while the event loop keeps turning, with the same SVG as in-process', async () => {
    const { createChartRenderer: fromDist } = (await import(compiled)) as { createChartRenderer: typeof createChartRenderer };
    const render = fromDist();
    expect(render).not.toBe(renderInProcess);
    const supervisor = machineGraphs().find((g) => g.machine === 'supervisor')!;
    let ticks = 0;
    // Counts event-loop turns during the render, not a wait: a render off the main thread lets them run.
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    const svg = await render(supervisor);
    const elapsed = Date.now() - started;
    clearInterval(timer);
    // In-process layout would block the loop for the whole time: no ticks at all.
    expect(ticks).toBeGreaterThan(elapsed / 10 / 4);
    expect(svg).toBe(await renderInProcess(supervisor));
  });

  it('falls back to in-process layout when running from the sources', () => {
    expect(createChartRenderer()).toBe(renderInProcess);
  });
});
