/**
 * The root pino logger and per-actor children. bin/ creates the root once; everyone else receives a
 * child whose bindings are computed once (pino's advice: nothing expensive on the hot path).
 * Messages are constant, kubelet style; variable data goes in fields.
 */
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** klog verbosity (--v) to a pino level: 0–1 info, 2–3 debug, 4+ trace. Errors and warnings always show. */
export function levelForVerbosity(v: number): pino.Level {
  if (v >= 4) return 'trace';
  if (v >= 2) return 'debug';
  return 'info';
}

export function createRootLogger(opts: { verbosity?: number; destination?: DestinationStream } = {}): Logger {
  const level = levelForVerbosity(opts.verbosity ?? 0);
  // stderr, as the Go kubelet logs; stdout stays free for commands that print documents (`config`).
  return pino({ level, base: { component: 'kubelet-ts' } }, opts.destination ?? pino.destination(2));
}

const children = new WeakMap<Logger, Map<string, Logger>>();

/** One cached child per actor id: `{ actorId, actorType }` bound once. */
export function actorLogger(root: Logger, actorId: string, actorType: string): Logger {
  let byId = children.get(root);
  if (!byId) children.set(root, (byId = new Map()));
  let child = byId.get(actorId);
  if (!child) byId.set(actorId, (child = root.child({ actorId, actorType })));
  return child;
}
