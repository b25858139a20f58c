/**
 * The node admission checks against, followed live in cluster mode: the API server's Node's labels
 * and taints as `nodeStatus` reports them changed; and the pods node affinity alone refused, which
 * wait while the Node is read again (Go's predicate handler re-fetching the Node), then are
 * admitted once more against what was read, and refused for good if they still do not match.
 * One read at a time: pods that came while a read was under way wait for the next one.
 */
import type { Taint } from '../api/common-types.js';
import { withApiNode } from '../pod/admission-node.js';
import type { Decision, SyncLoopCommand } from './commands.js';
import type { AwaitingNodeEntry, SyncLoopState } from './state.js';

type NodeState = Pick<SyncLoopState, 'node' | 'awaitingNode' | 'nodeRefreshing'>;

export function decideNodeChanged<S extends NodeState>(state: S, api: { labels: Record<string, string>; taints: Taint[] }): S {
  return { ...state, node: withApiNode(state.node, api) };
}

/** Pods wait for the Node to be read again: ask for a read unless one is under way. */
export function decideNodeRefresh<S extends NodeState>(state: S): Decision<S> {
  const unasked = Object.entries(state.awaitingNode).filter(([, w]) => !w.asked);
  if (state.nodeRefreshing || unasked.length === 0) return { state, commands: [] };
  const awaitingNode = { ...state.awaitingNode };
  for (const [uid, w] of unasked) awaitingNode[uid] = { ...w, asked: true };
  return { state: { ...state, awaitingNode, nodeRefreshing: true }, commands: [{ kind: 'refreshNode' }] };
}

/** The read is in (the Node it found came first, as a change): the pods that asked are added again; the others ask next. */
export function decideNodeRefreshed<S extends NodeState>(state: S): Decision<S> {
  const awaitingNode: Record<string, AwaitingNodeEntry> = {};
  const commands: SyncLoopCommand[] = [];
  for (const [uid, waiting] of Object.entries(state.awaitingNode)) {
    if (waiting.asked) commands.push({ kind: 'addDeferred', pod: waiting.pod, source: waiting.source, afterNodeRefresh: true });
    else awaitingNode[uid] = waiting;
  }
  const next = decideNodeRefresh({ ...state, awaitingNode, nodeRefreshing: false });
  return { state: next.state, commands: [...commands, ...next.commands] };
}
