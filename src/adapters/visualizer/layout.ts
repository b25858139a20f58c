/**
 * Lays a state graph out with elkjs (layered, hierarchy included, so transitions between nested
 * states are routed across their composites) and returns absolute coordinates, ready to draw.
 * Sizes are estimated from the label lengths: the page and the exported SVG use one small font,
 * so an estimate is close enough and keeps layout free of a text-measuring browser.
 */
import ElkModule from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { GraphState, StateGraph, StateKind } from '../../domain/graph/model.js';

export interface ChartNode {
  id: string;
  key: string;
  /** Dotted path below the root (`command.parse`), '' for the root. */
  path: string;
  kind: StateKind;
  depth: number;
  compound: boolean;
  invokes: string[];
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ChartEdge {
  id: string;
  source: string;
  target: string;
  /** One line per event that makes this move (same source and target). */
  labels: string[];
  points: [number, number][];
  labelBox: { x: number; y: number; width: number; height: number } | null;
}

export interface Chart {
  machine: string;
  width: number;
  height: number;
  nodes: ChartNode[];
  edges: ChartEdge[];
  /** Transitions of the root (taken in any state), as `event → target` lines. */
  anyState: string[];
}

export const CHAR_WIDTH = 6.6;
export const LINE_HEIGHT = 14;
const LABEL_PADDING = 12;

// elkjs is CommonJS whose types declare an ES default export: at run time the default import is
// the constructor itself, under type-checking it is the module with the constructor as `default`.
const ElkConstructor = ((ElkModule as unknown as { default?: unknown }).default ?? ElkModule) as typeof ElkModule.default; // cast: see above
const elk = new ElkConstructor();

export async function layoutChart(graph: StateGraph): Promise<Chart> {
  const toElk = (s: GraphState): ElkNode => {
    const lines = nodeLines(s);
    const labelWidth = Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH + 2 * LABEL_PADDING;
    if (s.children.length === 0) return { id: s.id, width: Math.max(60, labelWidth), height: lines.length * LINE_HEIGHT + 14 };
    return {
      id: s.id,
      layoutOptions: { 'elk.padding': `[top=${lines.length * LINE_HEIGHT + 14},left=12,bottom=12,right=12]`, 'elk.nodeSize.minimum': `(${labelWidth},40)` },
      children: s.children.map(toElk),
    };
  };
  // The root is the drawing itself, not a box in it: its transitions apply in any state, so they
  // are listed above the chart (`anyState`) instead of drawn.
  const drawn = graph.edges.filter((e) => e.source !== graph.root.id && e.target !== graph.root.id);
  const anyState = graph.edges.filter((e) => e.source === graph.root.id).map((e) => `${e.label} → ${e.target.slice(graph.root.id.length + 1)}`);
  // Transitions between the same two states are drawn as one arrow with one label line per event:
  // a pod worker has a dozen guarded variants of a few moves, and one arrow each buries the chart.
  const merged = new Map<string, { id: string; source: string; target: string; labels: string[] }>();
  for (const e of drawn) {
    const key = `${e.source}\u0000${e.target}`;
    const m = merged.get(key);
    if (m) {
      if (!m.labels.includes(e.label)) m.labels.push(e.label);
    } else merged.set(key, { id: e.id, source: e.source, target: e.target, labels: [e.label] });
  }
  const edges: ElkExtendedEdge[] = [...merged.values()].map((e) => ({
    id: e.id,
    sources: [e.source],
    targets: [e.target],
    labels: [{ text: e.labels.join('\n'), width: Math.max(...e.labels.map((l) => l.length)) * CHAR_WIDTH + 4, height: e.labels.length * LINE_HEIGHT }],
  }));
  const root: ElkNode = {
    id: graph.root.id,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.nodeNode': '24',
      'elk.spacing.edgeLabel': '4',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: graph.root.children.map(toElk),
    edges,
  };
  const out = await elk.layout(root);

  const states = new Map<string, GraphState>();
  const index = (s: GraphState) => {
    states.set(s.id, s);
    s.children.forEach(index);
  };
  index(graph.root);

  const nodes: ChartNode[] = [];
  const origin = new Map<string, { x: number; y: number }>([[out.id, { x: out.x ?? 0, y: out.y ?? 0 }]]);
  const walk = (n: ElkNode, ox: number, oy: number, depth: number) => {
    for (const c of n.children ?? []) {
      const x = ox + (c.x ?? 0);
      const y = oy + (c.y ?? 0);
      origin.set(c.id, { x, y });
      const s = states.get(c.id)!;
      nodes.push({
        id: c.id, key: s.key, path: s.path.join('.'), kind: s.kind, depth,
        compound: s.children.length > 0, invokes: s.invokes,
        x, y, width: c.width ?? 0, height: c.height ?? 0,
      });
      walk(c, x, y, depth + 1);
    }
  };
  walk(out, 0, 0, 0);

  const chartEdges: ChartEdge[] = [];
  const collect = (n: ElkNode) => {
    for (const e of n.edges ?? []) {
      const container = (e as ElkExtendedEdge & { container?: string }).container ?? n.id;
      const o = origin.get(container) ?? { x: 0, y: 0 };
      const src = [...merged.values()].find((g) => g.id === e.id)!;
      const points: [number, number][] = [];
      for (const sec of e.sections ?? []) {
        points.push([o.x + sec.startPoint.x, o.y + sec.startPoint.y]);
        for (const b of sec.bendPoints ?? []) points.push([o.x + b.x, o.y + b.y]);
        points.push([o.x + sec.endPoint.x, o.y + sec.endPoint.y]);
      }
      const l = e.labels?.[0];
      chartEdges.push({
        id: e.id, source: src.source, target: src.target, labels: src.labels, points,
        labelBox: l && l.x !== undefined && l.y !== undefined ? { x: o.x + l.x, y: o.y + l.y, width: l.width ?? 0, height: l.height ?? 0 } : null,
      });
    }
    for (const c of n.children ?? []) collect(c);
  };
  collect(out);
  return { machine: graph.machine, width: out.width ?? 0, height: out.height ?? 0, nodes, edges: chartEdges, anyState };
}

/** The text drawn in a state: its key, `(parallel)` for parallel states, then what it invokes. */
export function nodeLines(s: Pick<GraphState, 'key' | 'kind' | 'invokes'>): string[] {
  return [s.kind === 'parallel' ? `${s.key} (parallel)` : s.key, ...s.invokes.map((i) => `invoke ${i}`)];
}
