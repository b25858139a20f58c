/**
 * docs/reference/not-acted-on.md is generated from the tables start-up decides with: this test
 * fails when the page and the tables differ.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { notActedOnPage } from '../../scripts/not-acted-on-page.js';

it('docs/reference/not-acted-on.md is what scripts/not-acted-on-page.ts generates', () => {
  const page = readFileSync(fileURLToPath(new URL('../../docs/reference/not-acted-on.md', import.meta.url)), 'utf8');
  expect(page, 'stale page: run `npm run build && node dist/scripts/not-acted-on-page.js > docs/reference/not-acted-on.md`').toBe(notActedOnPage());
});
