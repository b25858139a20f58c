/**
 * docs/ARCHITECTURE.md is kept true by this test: its actor tree is what scripts/actor-tree.ts
 * generates from today's system, every repository path it names exists, every name of its traced
 * paths is in the file it is listed with, its phase table is src/domain/phases.ts's order, and the
 * code's pointers into it (and to nothing outside the repository) hold.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { actorTreeBlock, systemActorTree } from '../../scripts/actor-tree.js';
import { treeMachines } from '../../src/domain/graph/actor-tree.js';
import { PHASE_IDS } from '../../src/domain/phases.js';
import { MACHINES } from '../../src/machines/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = 'docs/ARCHITECTURE.md';
const page = readFileSync(join(root, PAGE), 'utf8');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The page's text from a `## ` heading to the next one. */
function section(heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${PAGE} has no section "## ${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

/** Table rows as cells (the outer pipes dropped). */
const rowsOf = (text: string, first: RegExp) =>
  text.split('\n').filter((l) => first.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
const linkedPath = (cell: string) => /\]\(\.\.\/([^)#]+)\)/.exec(cell)?.[1];
const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe(PAGE, () => {
  it('embeds the actor tree that scripts/actor-tree.ts generates now', () => {
    const embedded = /<!-- actor-tree:begin -->\n([\s\S]*?)<!-- actor-tree:end -->/.exec(page)?.[1];
    expect(embedded, 'the actor-tree markers are missing').toBeDefined();
    expect(embedded, 'stale actor tree: run `npm run build && node dist/scripts/actor-tree.js` and paste its output between the markers').toBe(actorTreeBlock());
  });

  it('draws every machine of the registry, each once', () => {
    expect([...treeMachines(systemActorTree())].sort()).toEqual(Object.keys(MACHINES).sort());
  });

  it('names only paths that exist in the repository', () => {
    const mentioned = [...page.matchAll(/(?:^|[^\w./-])((?:src|test|scripts|bench|docs|examples|proto)\/[\w./-]*[\w/])/g)].map((m) => m[1]!);
    const linked = [...page.matchAll(/\]\((\.\.\/[^)#]+)\)/g)].map((m) => resolve(root, 'docs', m[1]!).slice(root.length));
    expect(mentioned.length).toBeGreaterThan(100);
    expect([...mentioned, ...linked].filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });

  it('lists, on each hop of the traced paths, names that are in that hop\'s file', () => {
    const rows = rowsOf(section('Three paths through the code'), /^\| \d+ \|/);
    expect(rows.length).toBeGreaterThan(40);
    const missing: string[] = [];
    for (const [n, fileCell, namesCell] of rows) {
      const file = linkedPath(fileCell ?? '');
      if (!file) {
        missing.push(`row ${n}: no file linked`);
        continue;
      }
      const text = read(file);
      for (const name of backticked(namesCell ?? '')) {
        const parts = name.split('.');
        if (!parts.every((p) => new RegExp(`\\b${p}\\b`).test(text))) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists the start-up phases in src/domain/phases.ts's order, each with the file that builds its actor", () => {
    const rows = rowsOf(section('Start-up'), /^\| `[a-zA-Z]+\.[a-zA-Z]+` \|/);
    expect(rows.map(([phase]) => backticked(phase ?? '')[0])).toEqual([...PHASE_IDS]);
    const wrong = rows.filter(([phase, , , builtIn]) => !read(linkedPath(builtIn ?? '') ?? PAGE).includes(backticked(phase ?? '')[0]!));
    expect(wrong.map(([phase]) => phase)).toEqual([]);
  });
});

describe('references from the code', () => {
  const sources = ['src', 'test', 'scripts', 'bench'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => `${dir}/${f}`));

  it(`point at sections ${PAGE} has`, () => {
    const headings = new Set([...page.matchAll(/^##+ (.+)$/gm)].map((m) => m[1]!));
    const cited = sources.flatMap((f) => [...read(f).matchAll(/docs\/ARCHITECTURE\.md, ([A-Z][\w-]*(?: [a-z][\w-]*)*)/g)].map((m) => `${f}: ${m[1]}`));
    expect(cited.length).toBeGreaterThan(3);
    expect(cited.filter((c) => !headings.has(c.slice(c.indexOf(': ') + 2)))).toEqual([]);
  });

  it('cite no design or anchor document outside the repository, nor do the README and docs/', () => {
    const outside = ['DESIGN', 'ANCHORS'].map((name) => `${name}.md`);
    const docs = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    expect([...sources, ...docs].filter((f) => outside.some((doc) => read(f).includes(doc)))).toEqual([]);
  });
});
