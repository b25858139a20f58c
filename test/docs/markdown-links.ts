/**
 * The relative links of a Markdown file and the anchors its headings get, as GitHub renders them:
 * enough to check that README.md and docs/ point at files and sections that exist.
 */

export interface MarkdownLink {
  line: number;
  text: string;
  /** The path part, relative to the file's directory; '' for a link to a section of the same file. */
  path: string;
  /** The fragment after '#', or undefined when there is none. */
  anchor: string | undefined;
}

const FENCE = /^\s*(```|~~~)/;
const INLINE_CODE = /`[^`]*`/g;
const LINK = /!?\[((?:[^\]\\]|\\.)*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (FENCE.test(text)) fenced = !fenced;
    else if (!fenced) out.push({ line: i + 1, text });
  });
  return out;
}

/** Every link that is not a URL with a scheme (http:, mailto:), outside code. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const match of text.replace(INLINE_CODE, '').matchAll(LINK)) {
      const target = match[2] ?? '';
      if (EXTERNAL.test(target)) continue;
      const hash = target.indexOf('#');
      links.push({
        line,
        text: match[1] ?? '',
        path: decodeURI(hash < 0 ? target : target.slice(0, hash)),
        anchor: hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1)),
      });
    }
  }
  return links;
}

/**
 * GitHub's anchor for a heading: the rendered text lower-cased, punctuation and symbols dropped,
 * spaces made dashes.
 */
export function headingSlug(heading: string): string {
  const rendered = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return rendered.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a file's headings; a repeated heading gets -1, -2… as on GitHub. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = headingSlug(heading[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
