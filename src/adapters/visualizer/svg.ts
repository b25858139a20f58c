/**
 * A laid-out chart as standalone SVG. Each state is a `<g class="state" data-state="<id>">`, so
 * the page highlights the live actor's active states by toggling a class, without re-layout. The
 * styles are inline: the exported file renders the same anywhere, and no font is fetched.
 */
import { LINE_HEIGHT, nodeLines, type Chart } from './layout.js';

export function chartSvg(chart: Chart): string {
  const out: string[] = [];
  const w = Math.ceil(chart.width);
  const top = chart.anyState.length > 0 ? (chart.anyState.length + 1) * LINE_HEIGHT + 6 : 0;
  const h = Math.ceil(chart.height) + top;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-machine="${esc(chart.machine)}" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="11">`);
  out.push('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>');
  out.push('<style>.state rect{fill:#fff;stroke:#667;stroke-width:1}.state.compound>rect{fill:#f4f6fa}.state.final>rect{stroke-width:3}.state.active>rect{fill:#ffe9a8;stroke:#c77d00;stroke-width:2}.edge path{fill:none;stroke:#555;stroke-width:1}.edge text{fill:#345}.state text.invoke{fill:#666;font-style:italic}</style>');
  if (top > 0) {
    out.push('<g class="any-state">');
    out.push(`<text x="12" y="${LINE_HEIGHT}" font-weight="bold">in any state:</text>`);
    chart.anyState.forEach((line, i) => out.push(`<text x="24" y="${(i + 2) * LINE_HEIGHT}">${esc(line)}</text>`));
    out.push('</g>');
  }
  out.push(`<g transform="translate(0,${top})">`);
  // Outer composites first so their children are drawn over them.
  const nodes = [...chart.nodes].sort((a, b) => a.depth - b.depth);
  for (const n of nodes) {
    const classes = ['state', n.kind, ...(n.compound ? ['compound'] : [])].join(' ');
    const lines = nodeLines(n);
    out.push(`<g class="${classes}" data-state="${esc(n.id)}" data-path="${esc(n.path)}">`);
    out.push(`<title>${esc(n.id)}</title>`);
    out.push(`<rect x="${r(n.x)}" y="${r(n.y)}" width="${r(n.width)}" height="${r(n.height)}" rx="6"/>`);
    lines.forEach((text, i) => {
      const y = n.y + 14 + i * LINE_HEIGHT;
      out.push(`<text x="${r(n.compound ? n.x + 8 : n.x + n.width / 2)}" y="${r(y)}"${n.compound ? '' : ' text-anchor="middle"'}${i > 0 ? ' class="invoke"' : ''}>${esc(text)}</text>`);
    });
    out.push('</g>');
  }
  for (const e of chart.edges) {
    if (e.points.length < 2) continue;
    const d = e.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${r(x)},${r(y)}`).join('');
    out.push(`<g class="edge" data-source="${esc(e.source)}" data-target="${esc(e.target)}"><path d="${d}" marker-end="url(#arrow)"/>`);
    if (e.labelBox) {
      const box = e.labelBox;
      e.labels.forEach((label, i) => out.push(`<text x="${r(box.x + 2)}" y="${r(box.y + (i + 1) * LINE_HEIGHT - 3)}">${esc(label)}</text>`));
    }
    out.push('</g>');
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
