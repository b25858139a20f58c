/**
 * docs/reference/effects.md is generated from the code (each machine's *_EFFECTS and what
 * createEffects returns): this test fails when they differ, e.g. after an effect moved or a new one
 * was added, and when a machine names an effect the composition root does not provide.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { effectRows, effectsPage } from '../../scripts/effects-page.js';

it('docs/reference/effects.md is what scripts/effects-page.ts generates, one row per effect of every machine', () => {
  const rows = effectRows();
  expect(rows.map((r) => r.effect)).toEqual(expect.arrayContaining(['syncPod', 'relist', 'run.healthz', 'mountVolume', 'patchPodStatus']));
  const page = readFileSync(fileURLToPath(new URL('../../docs/reference/effects.md', import.meta.url)), 'utf8');
  expect(page, 'stale page: run `npm run build && node dist/scripts/effects-page.js > docs/reference/effects.md`').toBe(effectsPage(rows));
}, 120_000);
