import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDebugApp } from '../../src/adapters/debug-server/server.js';
import { prerenderedCharts, writePrerenderedCharts } from '../../src/adapters/visualizer/prerendered-charts.js';
import { machineGraphs } from '../../src/machines/index.js';

const base = { actors: () => [], pods: () => ({ pods: [] }), journal: () => ({ path: null, records: 0 }) };
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'kts-charts-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('charts laid out at build time', () => {
  const [supervisor, pleg] = ['supervisor', 'pleg'].map((m) => machineGraphs().find((g) => g.machine === m)!);

  it('serves the stored SVG for the very graph it was drawn from, and nothing for another version', () => {
    const dir = tempDir();
    writePrerenderedCharts(dir, [{ graph: supervisor!, svg: '<svg id="stored"/>' }]);
    const lookup = prerenderedCharts(dir);
    expect(lookup(supervisor!)).toBe('<svg id="stored"/>');
    expect(lookup(pleg!)).toBeUndefined();
    // The same machine name with one more state: a build older than the sources.
    const changed = { ...supervisor!, root: { ...supervisor!.root, children: [...supervisor!.root.children, { ...supervisor!.root.children[0]!, id: 'supervisor.extra', key: 'extra' }] } };
    expect(lookup(changed)).toBeUndefined();
  });

  it('answers nothing, without throwing, when there is no build output', () => {
    expect(prerenderedCharts(join(tempDir(), 'absent'))(supervisor!)).toBeUndefined();
  });

  it('lets the debug server answer a stored chart without laying anything out, and lay out the rest', async () => {
    const dir = tempDir();
    writePrerenderedCharts(dir, [{ graph: supervisor!, svg: '<svg id="stored"/>' }]);
    const laidOut: string[] = [];
    const app = buildDebugApp({
      ...base,
      visualizer: { mode: 'live', graphs: [supervisor!, pleg!], prerendered: prerenderedCharts(dir), render: async (g) => (laidOut.push(g.machine), '<svg id="live"/>') },
    });
    expect((await app.inject({ url: '/visualizer/charts/supervisor.svg' })).body).toBe('<svg id="stored"/>');
    expect((await app.inject({ url: '/visualizer/charts/pleg.svg' })).body).toBe('<svg id="live"/>');
    expect(laidOut).toEqual(['pleg']);
  });
});
