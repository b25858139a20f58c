/**
 * The actor tree of a composed system, read from the provided root machine: each machine's children
 * are the machines provided for its `setup({ actors })` slots, and its effects the other actor logic
 * the composition provided (what the machine declares but nobody provides is left out). Read through
 * a structural type, as model.ts reads state nodes, so the tree is always the one that runs; the
 * machines are named by the registry (the same config object), so tree, journal and charts agree.
 *
 * How a child starts is read from the definition: invoked (its invoke id is in some state) or
 * spawned by an action, whose id only the caller can name (`spawnIds`).
 */
import type { StateNodeLike } from './model.js';

/** What we read of an xstate v5 StateMachine (as provided). */
export interface MachineLike {
  readonly config: unknown;
  readonly root: StateNodeLike;
  readonly implementations: { readonly actors: Readonly<Record<string, unknown>> };
}

export interface ActorTreeNode {
  /** The machine's name in the registry. */
  machine: string;
  /** Effect actors the composition provides, by src, in declaration order. */
  effects: string[];
  children: ActorTreeChild[];
}

export interface ActorTreeChild {
  src: string;
  how: 'invoke' | 'spawn';
  /** The invoke id, or the spawn id the caller gave; null when it named none. */
  id: string | null;
  node: ActorTreeNode;
}

export interface ActorTreeOptions {
  /** Every machine by its registry name. */
  registry: Readonly<Record<string, MachineLike>>;
  /** For a spawned child (parent name, then src): the id it gets; spawned children are drawn in this order. */
  spawnIds?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

function isMachineLike(logic: unknown): logic is MachineLike {
  return typeof logic === 'object' && logic !== null && 'root' in logic && 'config' in logic && 'implementations' in logic;
}

/** src → invoke id, for every invoke in the machine's states. */
function invokedSrcs(root: StateNodeLike): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (node: StateNodeLike) => {
    for (const i of node.invoke) if (typeof i.src === 'string' && !found.has(i.src)) found.set(i.src, i.id);
    Object.values(node.states).forEach(visit);
  };
  visit(root);
  return found;
}

export function readActorTree(root: MachineLike, options: ActorTreeOptions): ActorTreeNode {
  const names = new Map(Object.entries(options.registry).map(([name, m]) => [m.config, name]));
  const read = (machine: MachineLike): ActorTreeNode => {
    const name = names.get(machine.config);
    if (name === undefined) throw new Error('actor tree: a provided child machine is not in the machine registry (src/machines/index.ts)');
    const declared = options.registry[name]!.implementations.actors;
    const invoked = invokedSrcs(machine.root);
    const spawnIds = options.spawnIds?.[name] ?? {};
    const effects: string[] = [];
    const children: ActorTreeChild[] = [];
    for (const [src, logic] of Object.entries(machine.implementations.actors)) {
      if (isMachineLike(logic)) {
        const id = invoked.get(src);
        children.push(id !== undefined ? { src, how: 'invoke', id, node: read(logic) } : { src, how: 'spawn', id: spawnIds[src] ?? null, node: read(logic) });
      } else if (logic !== declared[src]) {
        effects.push(src);
      }
    }
    // Invoked children first, then the spawned ones in the caller's order.
    const order = Object.keys(spawnIds);
    const rank = (c: ActorTreeChild) => (c.how === 'invoke' ? -1 : order.includes(c.src) ? order.indexOf(c.src) : order.length);
    children.sort((a, b) => rank(a) - rank(b));
    return { machine: name, effects, children };
  };
  return read(root);
}

/** Every machine in the tree, root first. */
export function treeMachines(node: ActorTreeNode): string[] {
  return [node.machine, ...node.children.flatMap((c) => treeMachines(c.node))];
}

export interface MermaidTreeOptions {
  /** Effects shown as one count (`28 start-up phase actors`) instead of one by one. */
  effectGroups?: readonly { label: string; srcs: readonly string[] }[];
  /** A `%%` comment line saying where the diagram comes from. */
  comment?: string;
}

/** The tree as a mermaid flowchart: one box per machine with its effects, one edge per child. */
export function actorTreeMermaid(tree: ActorTreeNode, options: MermaidTreeOptions = {}): string {
  const lines = ['flowchart LR'];
  if (options.comment) lines.push(`  %% ${options.comment}`);
  const effectsText = (effects: readonly string[]): string => {
    const parts: string[] = [];
    let rest = [...effects];
    for (const g of options.effectGroups ?? []) {
      const n = rest.filter((e) => g.srcs.includes(e)).length;
      if (n > 0) parts.push(`${n} ${g.label}`);
      rest = rest.filter((e) => !g.srcs.includes(e));
    }
    return [...parts, ...rest].join(', ');
  };
  const box = (node: ActorTreeNode) => {
    const effects = effectsText(node.effects);
    return `${node.machine}["<b>${node.machine}</b>${effects ? `<br/>effects: ${effects}` : ''}"]`;
  };
  lines.push(`  ${box(tree)}`);
  const visit = (node: ActorTreeNode) => {
    for (const c of node.children) {
      const label = `${c.how}${c.id !== null ? ` ${c.id}` : ''}`;
      lines.push(`  ${node.machine} -->|"${label}"| ${box(c.node)}`);
    }
    node.children.forEach((c) => visit(c.node));
  };
  visit(tree);
  return lines.join('\n') + '\n';
}
