/**
 * The query of the kubelet's `/exec`, `/attach` and `/portForward` requests, read as Go's kubelet
 * reads it (cri-streaming's remotecommand.NewOptions and portforward.NewV4Options), with its
 * messages for what it refuses.
 *
 * - exec and attach: a stream is on when its parameter is exactly `1`, under the names the API
 *   server sends (`input`, `output`, `error`, `tty`: its streamParams turns a PodExecOptions'
 *   `stdin=true` into `input=1`); the first value counts, as Go's FormValue takes it. With a TTY
 *   stderr is dropped (a terminal has one output). No stream at all is refused. The command is
 *   every `command` value, in order.
 * - port forward: over SPDY the ports come later, as headers of the client's streams, and none go
 *   in the CRI request; over WebSocket they must be in the query (`port`, repeated or
 *   comma-separated), each 1–65535.
 */

export interface RemoteCommandOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Read-only view of a query: URLSearchParams, or a parsed query object turned into one. */
export type Query = Pick<URLSearchParams, 'get' | 'getAll'>;

export function parseRemoteCommandOptions(query: Query): Parsed<RemoteCommandOptions> {
  const on = (name: string) => query.get(name) === '1';
  const tty = on('tty');
  const stdin = on('input');
  const stdout = on('output');
  const stderr = on('error') && !tty;
  if (!stdin && !stdout && !stderr) return { ok: false, message: 'you must specify at least 1 of stdin, stdout, stderr' };
  return { ok: true, value: { stdin, stdout, stderr, tty } };
}

/** The command of an exec request: every `command` value, in order (may be empty: the runtime refuses it). */
export function execCommand(query: Query): string[] {
  return query.getAll('command');
}

/** A decimal port as Go's strconv.ParseUint(p, 10, 16) reads it, or the reason it is not one. */
function parsePort(p: string): number | 'invalid syntax' | 'value out of range' {
  if (!/^[0-9]+$/.test(p)) return 'invalid syntax';
  const n = Number(p);
  return n > 65535 ? 'value out of range' : n;
}

export function parsePortForwardPorts(query: Query, webSocket: boolean): Parsed<number[]> {
  if (!webSocket) return { ok: true, value: [] };
  const values = query.getAll('port');
  if (values.length === 0) return { ok: false, message: 'query parameter "port" is required' };
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') return { ok: false, message: 'query parameter "port" cannot be empty' };
    for (const p of value.split(',')) {
      const port = parsePort(p);
      if (typeof port !== 'number') {
        return { ok: false, message: `unable to parse ${JSON.stringify(value)} as a port: strconv.ParseUint: parsing ${JSON.stringify(p)}: ${port}` };
      }
      if (port < 1) return { ok: false, message: `port ${JSON.stringify(value)} must be > 0` };
      ports.push(port);
    }
  }
  return { ok: true, value: ports };
}

/** Whether the headers ask for a protocol upgrade (Go's httpstream.IsUpgradeRequest: `Connection` names `upgrade`). */
export function isUpgradeRequest(headers: Record<string, string | string[] | undefined>): boolean {
  return headerTokens(headers.connection).includes('upgrade');
}

/** Whether the upgrade asked for is WebSocket (Go's wsstream.IsWebSocketRequest). */
export function isWebSocketRequest(headers: Record<string, string | string[] | undefined>): boolean {
  return isUpgradeRequest(headers) && headerTokens(headers.upgrade).includes('websocket');
}

function headerTokens(value: string | string[] | undefined): string[] {
  const all = Array.isArray(value) ? value.join(',') : value ?? '';
  return all.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
}
