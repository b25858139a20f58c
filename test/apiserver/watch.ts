/**
 * Watch streams: newline-delimited JSON `{type, object}` over a chunked 200 response, the way the
 * API server's watch cache serves them.
 *
 * - resourceVersion unset or "0": synthetic ADDED for every matching object, then live changes;
 *   with sendInitialEvents and bookmarks, a BOOKMARK annotated `k8s.io/initial-events-end` after them.
 * - resourceVersion N: every change after N from history, then live; N older than the history
 *   window gets one ERROR event carrying a 410 Expired Status, and the stream ends (as Go does).
 * - Selectors apply to each change's before and after state: an object that stops matching is sent
 *   as DELETED, one that starts matching as ADDED (the cacher's filtering).
 * - allowWatchBookmarks: a BOOKMARK with the current resourceVersion every bookmark interval, on
 *   `sendBookmarks()`, and just before timeoutSeconds ends the stream.
 */
import type { ServerResponse } from 'node:http';
import { apiVersionOf, type KubeObject, type ResourceDef } from './resources.js';
import { matchesSelection, type Selection } from './selectors.js';
import { apiErrors } from './status.js';
import type { ObjectStore, StoreChange } from './store.js';

export interface WatchRequest {
  def: ResourceDef;
  selection: Selection;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds: number | undefined;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The API server's default watch timeout is randomised from minRequestTimeout (1800 s) upwards. */
const DEFAULT_TIMEOUT_SECONDS = 1800;

class WatchStream {
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private ended = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly req: WatchRequest,
    private readonly res: ServerResponse,
    private readonly onEnd: (s: WatchStream) => void,
  ) {}

  start(bookmarkIntervalMs: number): void {
    this.res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    this.res.flushHeaders();
    this.res.on('close', () => this.end());
    const rv = this.req.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      for (const obj of this.store.list(this.req.def).items) {
        if (matchesSelection(obj, this.req.selection)) this.send('ADDED', obj);
      }
      if (this.req.sendInitialEvents && this.req.allowBookmarks) this.bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const changes = this.store.changesSince(Number(rv));
      if (changes === undefined) {
        this.send('ERROR', apiErrors.expired(rv, String(this.store.oldestWatchable())).status as unknown as KubeObject);
        this.end();
        return;
      }
      for (const change of changes) this.onChange(change);
    }
    this.unsubscribe = this.store.subscribe((change) => this.onChange(change));
    if (this.req.allowBookmarks) {
      // The stand-in server's bookmark period, as kube-apiserver sends them: what it serves, not a wait.
      const t = setInterval(() => this.bookmark(), bookmarkIntervalMs);
      t.unref();
      this.timers.push(t);
    }
    const timeoutMs = (this.req.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    // The watch's own timeoutSeconds, as kube-apiserver ends a watch: what it serves, not a wait.
    const t = setTimeout(() => {
      if (this.req.allowBookmarks) this.bookmark();
      this.end();
    }, timeoutMs);
    t.unref();
    this.timers.push(t);
  }

  bookmark(annotations?: Record<string, string>): void {
    if (!this.req.allowBookmarks) return;
    const metadata: Record<string, unknown> = { resourceVersion: this.store.resourceVersion() };
    if (annotations) metadata.annotations = annotations;
    this.send('BOOKMARK', { kind: this.req.def.kind, apiVersion: apiVersionOf(this.req.def), metadata });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) clearTimeout(t);
    this.unsubscribe?.();
    if (!this.res.writableEnded) this.res.end();
    this.onEnd(this);
  }

  private onChange(change: StoreChange): void {
    if (change.storage !== this.req.def.storage) return;
    const now = this.store.serve(this.req.def, change.object);
    const before = change.previous ? this.store.serve(this.req.def, change.previous) : undefined;
    const matchesNow = matchesSelection(now, this.req.selection);
    const matchedBefore = before !== undefined && matchesSelection(before, this.req.selection);
    if (change.type === 'ADDED') {
      if (matchesNow) this.send('ADDED', now);
    } else if (change.type === 'DELETED') {
      if (matchesNow || matchedBefore) this.send('DELETED', now);
    } else if (matchesNow) {
      this.send(matchedBefore ? 'MODIFIED' : 'ADDED', now);
    } else if (matchedBefore) {
      this.send('DELETED', now);
    }
  }

  private send(type: EventType, object: KubeObject): void {
    if (this.ended || this.res.writableEnded) return;
    this.res.write(`${JSON.stringify({ type, object })}\n`);
  }
}

/** Every open watch, so faults and close() can end them. */
export class WatchHub {
  private readonly streams = new Set<WatchStream>();

  constructor(private readonly store: ObjectStore, private readonly bookmarkIntervalMs: number) {}

  open(req: WatchRequest, res: ServerResponse): void {
    const stream = new WatchStream(this.store, req, res, (s) => this.streams.delete(s));
    this.streams.add(stream);
    stream.start(this.bookmarkIntervalMs);
  }

  count(): number {
    return this.streams.size;
  }

  sendBookmarks(): void {
    for (const s of this.streams) s.bookmark();
  }

  closeAll(): void {
    for (const s of [...this.streams]) s.end();
  }
}
