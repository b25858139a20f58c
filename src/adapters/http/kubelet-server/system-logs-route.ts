/**
 * `GET /logs/` and `/logs/<path>`: the node's log directory (/var/log in production), read-only, as
 * Go's kubelet serves it when enableSystemLogHandler (and enableDebuggingHandlers) are on. A
 * directory lists its entries, a file is streamed; a directory named without its trailing `/` is
 * redirected to it, as Go's FileServer does.
 *
 * The directory is the attack surface, so every request is confined to it:
 * - a `..` segment is refused with 400 before the file system is touched (domain/kubelet-server/system-logs);
 * - the path is resolved with every symbolic link followed, and must stay inside the directory
 *   (itself resolved): a link that points out is answered 404;
 * - the path is opened once, the final component without following a link (O_NOFOLLOW); from then
 *   on only the descriptor is used: its own entry in /proc/self/fd must still lie inside the
 *   directory (a link swapped into the path after the check is refused), a directory is listed
 *   through that entry and a file is fstat'ed and read through the descriptor, so nothing swapped in
 *   later is listed or served. Without /proc there is no answer (500), never an unchecked one;
 * - only regular files and directories are served: a FIFO or a device is answered 404, and the open
 *   is non-blocking so a FIFO cannot hold the request.
 * Go serves /logs/ with http.FileServer(http.Dir("/var/log/")): it also opens once and lists or reads
 * the open file, but follows every link, out of the directory too (http.Dir's documented behaviour).
 * We differ there on purpose: a link, or a swapped component, that leads out is 404.
 * Errors as Go maps them: missing → 404, no permission → 403.
 *
 * Not served: Go's `?query=` node log queries (journal and service logs, the NodeLogQuery feature
 * gate with enableSystemLogQuery): answered 501. Range requests are not supported (Go's are).
 */
import { constants } from 'node:fs';
import { open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { directoryListingHtml, parseLogsPath, sniffLogContentType } from '../../../domain/kubelet-server/system-logs.js';
import { reply, replyText } from './reply.js';
import type { RouteRequest, Router } from './router.js';

export interface SystemLogsOptions {
  /** enableSystemLogHandler: false answers 405 `logs endpoint is disabled.`, as Go. */
  enabled: boolean;
  /** The directory served; /var/log in production. */
  dir: string;
  /** How a path under it is opened (fs/promises open by default): tests change the tree right after. */
  openPath?: (path: string, flags: number) => Promise<FileHandle>;
}

const PREFIX = '/logs/';
const SNIFF_BYTES = 512;

type Text = (status: number, body: string) => void;

export function registerSystemLogs(router: Router, opts: SystemLogsOptions): void {
  if (!opts.enabled) {
    const disabled = (_req: RouteRequest, res: ServerResponse) => replyText(res, 405, 'logs endpoint is disabled.\n');
    router.add('ALL', '/logs/', disabled);
    router.add('ALL', '/logs/*', disabled);
    return;
  }
  const serve = async (req: RouteRequest, res: ServerResponse) => {
    const text: Text = (status, body) => replyText(res, status, `${body}\n`);
    if (req.query.query !== undefined) {
      return text(501, 'node log queries (?query=, the NodeLogQuery feature) are not implemented by kubelet-ts; /logs/ serves the files of the log directory');
    }
    const parsed = parseLogsPath(req.rawPath.slice(PREFIX.length));
    if (!parsed.ok) return text(400, parsed.reason);
    return serveConfined(opts, parsed.segments, parsed.trailingSlash, res, text);
  };
  router.get('/logs/', serve);
  router.get('/logs/*', serve);
}

async function serveConfined({ dir, openPath = open }: SystemLogsOptions, segments: string[], trailingSlash: boolean, res: ServerResponse, text: Text): Promise<void> {
  let root: string;
  let target: string;
  try {
    root = await realpath(dir);
    target = await realpath(join(root, ...segments));
  } catch (err) {
    return fsError(err, text);
  }
  if (!isInside(root, target)) return text(404, 'the log path resolves outside the log directory');

  let handle: FileHandle;
  try {
    handle = await openPath(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return fsError(err, text);
  }
  try {
    // What was opened, whatever the path names by now; no answer from /proc is no answer at all.
    const procEntry = openedPath(handle);
    const opened = await readlink(procEntry).catch(() => undefined);
    if (opened === undefined) {
      await handle.close();
      return text(500, `500 Internal Server Error: cannot tell where the opened log path is (${procEntry} is unreadable)`);
    }
    if (!isInside(root, opened)) {
      await handle.close();
      return text(404, 'the log path resolves outside the log directory');
    }
    const stat = await handle.stat();
    const name = segments[segments.length - 1] ?? '';
    if (stat.isDirectory()) {
      if (!trailingSlash) {
        await handle.close();
        return reply(res, 301, undefined, { headers: { location: `./${encodeURIComponent(name)}/` } });
      }
      // Listed through the descriptor: the directory checked above, never what the path names now.
      const entries = await readdir(procEntry, { withFileTypes: true }).finally(() => handle.close());
      return reply(res, 200, directoryListingHtml(entries.map((e) => ({ name: e.name, directory: e.isDirectory() }))), { type: 'text/html; charset=utf-8' });
    }
    if (!stat.isFile()) {
      await handle.close();
      return text(404, 'not a regular file or directory');
    }
    if (trailingSlash) {
      await handle.close();
      return reply(res, 301, undefined, { headers: { location: `../${encodeURIComponent(name)}` } });
    }
    if (stat.size === 0) {
      await handle.close();
      return replyText(res, 200, '');
    }
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    await handle.read(head, 0, head.length, 0);
    // The stream owns the handle from here and closes it at its end, or when the client goes. A log
    // grows while it is read: the body stops at the size announced in Content-Length.
    return reply(res, 200, handle.createReadStream({ start: 0, end: stat.size - 1 }), { type: sniffLogContentType(head), headers: { 'content-length': stat.size } });
  } catch (err) {
    await handle.close().catch(() => {});
    return fsError(err, text);
  }
}

/** The descriptor's own entry in /proc: a link to what it has open, and a way to list it. */
function openedPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Go's toHTTPError: not found → 404, permission → 403, anything else → 500. */
function fsError(err: unknown, text: Text): void {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return text(404, '404 page not found');
  if (code === 'EACCES' || code === 'EPERM') return text(403, '403 Forbidden');
  return text(500, `500 Internal Server Error: ${code ?? 'unknown error'}`);
}
