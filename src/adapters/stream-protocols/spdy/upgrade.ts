/**
 * The HTTP side of a SPDY/3.1 upgrade, as the Go server answers it (apimachinery's httpstream
 * Handshake and spdy ResponseUpgrader): the subprotocol is the first of the client's
 * X-Stream-Protocol-Version values that the server speaks (the client's order wins); none offered is
 * 400, none shared is 403 listing what we accept; an upgrade that does not ask for SPDY/3.1 is 400.
 * Go writes the 403 text twice (two http.Error calls on one response); we write it once.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { writeRawHttpError } from '../raw-http-error.js';

export const PROTOCOL_VERSION_HEADER = 'X-Stream-Protocol-Version';
const ACCEPTED_VERSIONS_HEADER = 'X-Accepted-Stream-Protocol-Versions';

export type UpgradeDecision =
  | { ok: true; protocol: string }
  | { ok: false; status: 400 | 403; message: string; headers: Array<[string, string]> };

/** Go's canonical header spelling, for messages that print header names. */
function canonicalName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase());
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === name.toLowerCase()) values.push(req.rawHeaders[i + 1]!);
  }
  return values;
}

/** Go's %#v of an http.Header: names canonical and sorted, values as they came. */
function goHeaderDump(req: IncomingMessage): string {
  const byName = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = canonicalName(req.rawHeaders[i]!);
    byName.set(name, [...(byName.get(name) ?? []), req.rawHeaders[i + 1]!]);
  }
  const entries = [...byName.keys()].sort().map((name) => `${JSON.stringify(name)}:[]string{${byName.get(name)!.map((v) => JSON.stringify(v)).join(', ')}}`);
  return `http.Header{${entries.join(', ')}}`;
}

export function decideUpgrade(req: IncomingMessage, serverProtocols: readonly string[]): UpgradeDecision {
  const client = headerValues(req, PROTOCOL_VERSION_HEADER).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  if (client.length === 0) {
    return { ok: false, status: 400, message: `unable to upgrade: ${PROTOCOL_VERSION_HEADER} is required`, headers: [] };
  }
  const protocol = client.find((p) => serverProtocols.includes(p));
  if (protocol === undefined) {
    return {
      ok: false,
      status: 403,
      message: `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${serverProtocols.join(' ')}]`,
      headers: serverProtocols.map((p) => [ACCEPTED_VERSIONS_HEADER, p]),
    };
  }
  const connection = (req.headers.connection ?? '').toLowerCase();
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  if (!connection.includes('upgrade') || !upgrade.includes('spdy/3.1')) {
    return { ok: false, status: 400, message: `unable to upgrade: missing upgrade headers in request: ${goHeaderDump(req)}`, headers: [] };
  }
  return { ok: true, protocol };
}

/** Answers a refused upgrade as Go's http.Error does, then hangs up. */
export function refuseUpgrade(socket: Duplex, decision: Extract<UpgradeDecision, { ok: false }>): void {
  writeRawHttpError(socket, decision.status, decision.message, decision.headers);
}

/** The 101 that turns the connection into a SPDY/3.1 session speaking `protocol`. */
export function acceptUpgrade(socket: Duplex, protocol: string): void {
  socket.write([
    'HTTP/1.1 101 Switching Protocols',
    'Connection: Upgrade',
    'Upgrade: SPDY/3.1',
    `${PROTOCOL_VERSION_HEADER}: ${protocol}`,
    '', '',
  ].join('\r\n'));
}
