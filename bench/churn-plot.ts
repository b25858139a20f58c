/**
 * The churn bench's chart: RSS and heap over pods run, one line per kubelet and figure, as a
 * self-contained SVG (no library: a few polylines and axis labels) for docs/.
 */
import type { ChurnSample } from './churn-fit.js';

export interface PlotSeries { label: string; color: string; dashed?: boolean; samples: readonly ChurnSample[]; figure: string }

const W = 760;
const H = 400;
const PAD = { left: 60, right: 180, top: 30, bottom: 45 };
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A rounded step for `max` spread over about `ticks` ticks. */
function step(max: number, ticks: number): number {
  const raw = max / ticks;
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}

export function churnChart(title: string, series: readonly PlotSeries[]): string {
  const points = series.flatMap((s) => s.samples.map((x) => [x.podsRun, x.figures[s.figure] ?? 0] as const)).filter(([, y]) => Number.isFinite(y));
  const xMax = Math.max(1, ...points.map(([x]) => x));
  const yMax = Math.max(1, ...points.map(([, y]) => y)) * 1.05;
  const [plotW, plotH] = [W - PAD.left - PAD.right, H - PAD.top - PAD.bottom];
  const px = (x: number) => PAD.left + (x / xMax) * plotW;
  const py = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`, `<text x="${PAD.left}" y="18" font-size="14">${esc(title)}</text>`];
  const [xs, ys] = [step(xMax, 6), step(yMax, 5)];
  for (let x = 0; x <= xMax; x += xs) {
    out.push(`<line x1="${px(x)}" y1="${PAD.top}" x2="${px(x)}" y2="${PAD.top + plotH}" stroke="#eee"/>`,
      `<text x="${px(x)}" y="${PAD.top + plotH + 16}" text-anchor="middle">${x}</text>`);
  }
  for (let y = 0; y <= yMax; y += ys) {
    out.push(`<line x1="${PAD.left}" y1="${py(y)}" x2="${PAD.left + plotW}" y2="${py(y)}" stroke="#eee"/>`,
      `<text x="${PAD.left - 6}" y="${py(y) + 4}" text-anchor="end">${y}</text>`);
  }
  out.push(`<text x="${PAD.left + plotW / 2}" y="${H - 8}" text-anchor="middle">pods run</text>`,
    `<text x="14" y="${PAD.top + plotH / 2}" transform="rotate(-90 14 ${PAD.top + plotH / 2})" text-anchor="middle">MiB</text>`);
  series.forEach((s, i) => {
    const line = s.samples.map((x) => `${px(x.podsRun).toFixed(1)},${py(x.figures[s.figure] ?? 0).toFixed(1)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${line}"/>`,
      `<line x1="${W - PAD.right + 12}" y1="${PAD.top + 10 + i * 20}" x2="${W - PAD.right + 36}" y2="${PAD.top + 10 + i * 20}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${W - PAD.right + 42}" y="${PAD.top + 14 + i * 20}">${esc(s.label)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
