/**
 * A machine definition as a plain graph: every state node (nested, parallel, final) and every
 * transition that changes state, labelled with its event; invoked actors noted on their state.
 * Read from xstate's resolved state nodes (`machine.root`) through a structural type, so the
 * domain needs no xstate import and the graph always matches the machine that runs.
 *
 * Transitions without a target (a handler that only runs actions) change no state: they are kept
 * on the node (`handles`) rather than drawn as edges.
 */

/** What we read of an xstate v5 StateNode. */
export interface StateNodeLike {
  readonly id: string;
  readonly key: string;
  readonly type: string;
  readonly states: Readonly<Record<string, StateNodeLike>>;
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
  readonly always?: readonly TransitionLike[] | undefined;
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
  readonly initial?: { readonly target: readonly StateNodeLike[] } | undefined;
}

export interface TransitionLike {
  readonly eventType: string;
  readonly target?: readonly StateNodeLike[] | undefined;
  readonly guard?: unknown;
  readonly delay?: unknown;
}

export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface GraphState {
  /** xstate's state node id: `supervisor.command.parse`. */
  id: string;
  key: string;
  /** Keys from the root down, the root excluded: `['command', 'parse']`; what a state value names. */
  path: string[];
  kind: StateKind;
  /** Id of the initial child of a compound state. */
  initial: string | null;
  children: GraphState[];
  /** Invoked actors: their src names (or ids when the src is inline logic). */
  invokes: string[];
  /** Events handled here without leaving the state. */
  handles: string[];
}

export interface GraphEdge {
  /** Unique within the graph. */
  id: string;
  source: string;
  target: string;
  /** The raw event type: `pod.kill.requested`, `xstate.done.actor.syncPod`, `xstate.after.…`. */
  event: string;
  /** For people: `pod.kill.requested`, `done(syncPod)`, `after(backOffPeriod)`, `[guard]` appended. */
  label: string;
}

export interface StateGraph {
  machine: string;
  root: GraphState;
  edges: GraphEdge[];
}

export function machineGraph(machine: string, root: StateNodeLike): StateGraph {
  const edges: GraphEdge[] = [];
  // An invoke without an id gets a generated one (`0.runtime.ready.checking`): label its done and
  // error events with the src it runs instead.
  const srcById = new Map<string, string>();
  const collect = (node: StateNodeLike) => {
    for (const i of node.invoke) if (typeof i.src === 'string') srcById.set(i.id, i.src);
    Object.values(node.states).forEach(collect);
  };
  collect(root);
  const visit = (node: StateNodeLike, path: string[]): GraphState => {
    const handles: string[] = [];
    const all: TransitionLike[] = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const t of all) {
      const label = eventLabel(t, srcById);
      const targets = t.target ?? [];
      if (targets.length === 0) {
        if (!handles.includes(label)) handles.push(label);
        continue;
      }
      for (const target of targets) {
        edges.push({ id: `e${edges.length}`, source: node.id, target: target.id, event: t.eventType || 'always', label });
      }
    }
    return {
      id: node.id,
      key: node.key,
      path,
      kind: stateKind(node.type),
      initial: node.initial?.target[0]?.id ?? null,
      children: Object.values(node.states).map((c) => visit(c, [...path, c.key])),
      invokes: node.invoke.map((i) => (typeof i.src === 'string' ? i.src : i.id)),
      handles,
    };
  };
  const rootState = visit(root, []);
  return { machine, root: rootState, edges };
}

function stateKind(type: string): StateKind {
  return type === 'compound' || type === 'parallel' || type === 'final' || type === 'history' ? type : 'atomic';
}

/** An event type as people read it in a chart. */
export function eventLabel(t: TransitionLike, srcById: ReadonlyMap<string, string> = new Map()): string {
  const actor = (id: string) => srcById.get(id) ?? id;
  const ev = t.eventType;
  let label: string;
  if (!ev) label = 'always';
  else if (ev.startsWith('xstate.after.')) label = `after(${delayName(t.delay, ev)})`;
  else if (ev.startsWith('xstate.done.actor.')) label = `done(${actor(ev.slice('xstate.done.actor.'.length))})`;
  else if (ev.startsWith('xstate.error.actor.')) label = `error(${actor(ev.slice('xstate.error.actor.'.length))})`;
  else if (ev.startsWith('xstate.done.state.')) label = 'done';
  else label = ev;
  const guard = guardName(t.guard);
  return guard ? `${label} [${guard}]` : label;
}

function delayName(delay: unknown, eventType: string): string {
  if (typeof delay === 'string' || typeof delay === 'number') return String(delay);
  // `xstate.after.<delay>.<stateId>`: the delay is the first segment after the prefix.
  return eventType.slice('xstate.after.'.length).split('.')[0] ?? '?';
}

function guardName(guard: unknown): string | null {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') return (guard as { type: string }).type;
  if (typeof guard === 'function') return guard.name && guard.name !== 'guard' ? guard.name : 'guard';
  return null;
}

/** Every state of the graph, depth first, the root included. */
export function allStates(graph: StateGraph): GraphState[] {
  const out: GraphState[] = [];
  const walk = (s: GraphState) => {
    out.push(s);
    s.children.forEach(walk);
  };
  walk(graph.root);
  return out;
}

/**
 * The ids of the states a state value names (every active node, ancestors included), e.g.
 * `{ run: 'nodeName' }` → `supervisor.run`, `supervisor.run.nodeName`. What the page highlights.
 */
export function activeStateIds(graph: StateGraph, value: unknown): string[] {
  const out: string[] = [];
  const walk = (node: GraphState, v: unknown) => {
    if (typeof v === 'string') {
      const child = node.children.find((c) => c.key === v);
      if (child) out.push(child.id);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    for (const [k, sub] of Object.entries(v)) {
      const child = node.children.find((c) => c.key === k);
      if (!child) continue;
      out.push(child.id);
      walk(child, sub);
    }
  };
  walk(graph.root, value);
  return out;
}
