import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, headingSlug, relativeLinks } from './markdown-links.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Every link of README.md and docs/ that names a missing file or a missing section, one line each. */
function brokenLinks(): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let set = anchorsOf.get(file);
    if (!set) anchorsOf.set(file, (set = headingAnchors(readFileSync(file, 'utf8'))));
    return set;
  };
  const broken: string[] = [];
  for (const file of [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))]) {
    for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
      const where = `${relative(ROOT, file)}:${link.line} [${link.text}]`;
      const target = link.path === '' ? file : join(dirname(file), link.path);
      if (!existsSync(target)) {
        broken.push(`${where} → ${link.path}: no such file`);
        continue;
      }
      const isMarkdown = statSync(target).isFile() && target.endsWith('.md');
      if (link.anchor !== undefined && isMarkdown && !anchors(target).has(link.anchor)) {
        broken.push(`${where} → ${link.path}#${link.anchor}: no such section`);
      }
    }
  }
  return broken;
}

describe('relative links in Markdown', () => {
  it('are found with their path and anchor, outside code, and URLs are left out', () => {
    const md = [
      'See [the page](docs/a.md#some-part) and [here](#top), not [a site](https://example.com).',
      '`[in code](nowhere.md)`',
      '```',
      '[in a block](nowhere.md)',
      '```',
      '![a picture](img/x.png)',
    ].join('\n');
    expect(relativeLinks(md)).toEqual([
      { line: 1, text: 'the page', path: 'docs/a.md', anchor: 'some-part' },
      { line: 1, text: 'here', path: '', anchor: 'top' },
      { line: 6, text: 'a picture', path: 'img/x.png', anchor: undefined },
    ]);
  });

  it('get the anchors GitHub gives headings, repeated ones numbered', () => {
    expect(headingSlug('/metrics/resource and /metrics/cadvisor')).toBe('metricsresource-and-metricscadvisor');
    expect(headingSlug("The journal's pod snapshots by reference (format version 2)")).toBe(
      'the-journals-pod-snapshots-by-reference-format-version-2',
    );
    expect(headingSlug('`journal`')).toBe('journal');
    expect([...headingAnchors('# A\n## Where it differs\n## Where it differs\n```\n# not a heading\n```')]).toEqual([
      'a',
      'where-it-differs',
      'where-it-differs-1',
    ]);
  });

  it('in README.md and docs/ all point at a file and section that exist', () => {
    expect(brokenLinks()).toEqual([]);
  });
});
