/**
 * A D-Bus client connection over a unix socket: SASL EXTERNAL authentication (the peer checks our
 * uid from the socket's credentials), Hello, method calls with their replies, signals by match
 * rule, and the Properties interface. What the kubelet needs from logind and systemd and no more:
 * no unix fd passing (Node's sockets cannot receive SCM_RIGHTS), so calls that answer with a file
 * descriptor are out of reach here (see logind-inhibitor.ts for the lock).
 */
import { createConnection, type Socket } from 'node:net';
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';
import { decodeBody, decodeHeader, encodeMessage, FIXED_HEADER, messageLength, type DbusMessage, type MessageHead } from './message.js';
import type { DbusValue, Variant } from './marshal.js';

const BUS_NAME = 'org.freedesktop.DBus';
const BUS_PATH = '/org/freedesktop/DBus';
const PROPERTIES = 'org.freedesktop.DBus.Properties';
const NAME_HAS_NO_OWNER = 'org.freedesktop.DBus.Error.NameHasNoOwner';
/** Where the system bus listens when DBUS_SYSTEM_BUS_ADDRESS does not say (the D-Bus specification's default). */
export const DEFAULT_SYSTEM_BUS_ADDRESS = 'unix:path=/var/run/dbus/system_bus_socket';

export interface MethodCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: DbusValue[];
}

export interface SignalMatch {
  path: string;
  interface: string;
  member: string;
  /**
   * Only signals sent by the current owner of this bus name: the match rule names it, and each
   * signal's sender is checked against the owner GetNameOwner gave, followed by NameOwnerChanged.
   */
  sender?: string;
}

export interface SignalOptions {
  /** Called, with the sender's name only, for a matching signal from someone not owning `match.sender`. */
  onOtherSender?: (sender: string) => void;
}

export interface DbusConnection {
  /** The unique name the bus gave us (":1.42"). */
  readonly uniqueName: string;
  /** Calls a method; resolves with the reply's body, rejects with the D-Bus error's name and text. */
  call(call: MethodCall): Promise<DbusValue[]>;
  getProperty(destination: string, path: string, iface: string, name: string): Promise<DbusValue>;
  setProperty(destination: string, path: string, iface: string, name: string, value: Variant): Promise<void>;
  /** Adds a match rule and hands every matching signal's body to `handler`. */
  onSignal(match: SignalMatch, handler: (body: DbusValue[], signal: DbusMessage) => void, options?: SignalOptions): Promise<void>;
  /** Called once when the connection ends, by our close or the peer's. */
  onClose(handler: (err?: Error) => void): void;
  close(): void;
}

/** The system bus's address: DBUS_SYSTEM_BUS_ADDRESS (as libdbus, godbus and sd-bus read it), else the default. */
export function systemBusAddress(env: Readonly<Record<string, string | undefined>>): string {
  return env['DBUS_SYSTEM_BUS_ADDRESS'] || DEFAULT_SYSTEM_BUS_ADDRESS;
}

/** The socket path of the first unix address in a D-Bus address list (an abstract one gets its leading NUL). */
export function unixSocketPath(address: string): string {
  for (const entry of address.split(';')) {
    const [transport, rest = ''] = entry.split(/:(.*)/s) as [string, string?];
    if (transport !== 'unix') continue;
    const keys = new Map(rest.split(',').map((kv) => kv.split(/=(.*)/s) as [string, string]));
    const path = keys.get('path');
    if (path) return decodeURIComponent(path);
    const abstract = keys.get('abstract');
    if (abstract) return `\0${decodeURIComponent(abstract)}`;
  }
  throw new KubeletError('KLT_ERR_DBUS_UNAVAILABLE', `no unix socket in the D-Bus address ${JSON.stringify(address)}`);
}

/** The D-Bus error a call was answered with. */
export class DbusCallError extends KubeletError {
  constructor(readonly dbusName: string, message: string) {
    super('KLT_ERR_DBUS_CALL', `${dbusName}: ${message}`);
  }
}

export interface ConnectOptions {
  uid: number;
  /** How long to wait for the socket, the authentication and Hello. */
  timeoutMs?: number;
}

export async function connectBus(address: string, options: ConnectOptions): Promise<DbusConnection> {
  const path = unixSocketPath(address);
  const socket = createConnection({ path });
  const timeoutMs = options.timeoutMs ?? 5_000;
  try {
    await withTimeout(authenticate(socket, options.uid), timeoutMs, `D-Bus authentication at ${address} timed out`);
  } catch (err) {
    socket.destroy();
    if (err instanceof KubeletError) throw err;
    throw new KubeletError('KLT_ERR_DBUS_UNAVAILABLE', `cannot connect to the D-Bus at ${address}: ${(err as Error).message}`, { cause: err });
  }
  const conn = new Connection(socket);
  try {
    const [name] = await withTimeout(
      conn.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'Hello' }),
      timeoutMs,
      `D-Bus Hello at ${address} timed out`,
    );
    conn.uniqueName = String(name);
  } catch (err) {
    conn.close();
    throw err;
  }
  return conn;
}

/** `p`, or a KubeletError with `code` and `message` once `ms` have passed without its answer. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string, code: KubeletErrorCode = 'KLT_ERR_DBUS_UNAVAILABLE'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new KubeletError(code, message)), ms);
    p.then((v) => { clearTimeout(timer); resolve(v); }, (e: unknown) => { clearTimeout(timer); reject(e); });
  });
}

/** SASL: a NUL byte, AUTH EXTERNAL with the uid's decimal digits in hex, OK, BEGIN. */
function authenticate(socket: Socket, uid: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let text = '';
    const fail = (err: Error) => { cleanup(); reject(err); };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const eol = text.indexOf('\r\n');
      if (eol < 0) return;
      const line = text.slice(0, eol);
      cleanup();
      if (!line.startsWith('OK ')) {
        reject(new KubeletError('KLT_ERR_DBUS_UNAVAILABLE', `D-Bus refused authentication: ${line}`));
        return;
      }
      socket.write('BEGIN\r\n');
      resolve();
    };
    const onClose = () => fail(new Error('the bus closed the connection during authentication'));
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('error', fail);
    socket.on('close', onClose);
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(uid), 'ascii').toString('hex')}\r\n`);
  });
}

interface Pending { resolve: (body: DbusValue[]) => void; reject: (err: Error) => void }
interface Subscription { match: SignalMatch; handler: (body: DbusValue[], signal: DbusMessage) => void; options: SignalOptions }
/** A bus name's current owner (null while it has none), and the first read of it. */
interface Owner { unique: string | null; known: Promise<void> }

class Connection implements DbusConnection {
  uniqueName = '';
  private serial = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly subscriptions: Subscription[] = [];
  private readonly owners = new Map<string, Owner>();
  private readonly closeHandlers: ((err?: Error) => void)[] = [];
  /** The bytes received and not yet read, as they came: joined once a whole message is in. */
  private parts: Buffer[] = [];
  private buffered = 0;
  /** The length of the message being received, once its fixed header is in. */
  private expected: number | null = null;
  private closed = false;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => this.end(err));
    socket.on('close', () => this.end());
  }

  call(call: MethodCall): Promise<DbusValue[]> {
    if (this.closed) return Promise.reject(new KubeletError('KLT_ERR_DBUS_UNAVAILABLE', 'the D-Bus connection is closed'));
    const serial = ++this.serial;
    return new Promise<DbusValue[]>((resolve, reject) => {
      this.pending.set(serial, { resolve, reject });
      this.socket.write(encodeMessage({ kind: 'call', serial, ...call }));
    });
  }

  async getProperty(destination: string, path: string, iface: string, name: string): Promise<DbusValue> {
    const [v] = await this.call({ destination, path, interface: PROPERTIES, member: 'Get', signature: 'ss', body: [iface, name] });
    return (v as Variant).value;
  }

  async setProperty(destination: string, path: string, iface: string, name: string, value: Variant): Promise<void> {
    await this.call({ destination, path, interface: PROPERTIES, member: 'Set', signature: 'ssv', body: [iface, name, value] });
  }

  async onSignal(match: SignalMatch, handler: (body: DbusValue[], signal: DbusMessage) => void, options: SignalOptions = {}): Promise<void> {
    if (match.sender !== undefined) await this.followOwner(match.sender);
    const sender = match.sender === undefined ? '' : `sender='${match.sender}',`;
    await this.addMatch(`type='signal',${sender}path='${match.path}',interface='${match.interface}',member='${match.member}'`);
    this.subscriptions.push({ match, handler, options });
  }

  onClose(handler: (err?: Error) => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
    this.end();
  }

  private async addMatch(rule: string): Promise<void> {
    await this.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'AddMatch', signature: 's', body: [rule] });
  }

  /**
   * Keeps `name`'s owner known: NameOwnerChanged is subscribed to before GetNameOwner is asked, so
   * no change between the two is missed (the bus answers and signals in the order it acts).
   */
  private followOwner(name: string): Promise<void> {
    const seen = this.owners.get(name);
    if (seen) return seen.known;
    const owner: Owner = { unique: null, known: Promise.resolve() };
    owner.known = (async () => {
      await this.addMatch(`type='signal',sender='${BUS_NAME}',path='${BUS_PATH}',interface='${BUS_NAME}',member='NameOwnerChanged',arg0='${name}'`);
      try {
        const [unique] = await this.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'GetNameOwner', signature: 's', body: [name] });
        owner.unique = String(unique);
      } catch (err) {
        if (!(err instanceof DbusCallError && err.dbusName === NAME_HAS_NO_OWNER)) throw err;
      }
    })();
    // A failed first read is not kept: the next subscription asks again.
    owner.known.catch(() => this.owners.delete(name));
    this.owners.set(name, owner);
    return owner.known;
  }

  private receive(chunk: Buffer): void {
    this.parts.push(chunk);
    this.buffered += chunk.length;
    while (!this.closed) {
      let bytes: Buffer;
      let head: MessageHead;
      try {
        if (this.expected === null) {
          if (this.buffered < FIXED_HEADER) return;
          this.expected = messageLength(this.fixedHeader()) as number;
        }
        const expected = this.expected;
        if (this.buffered < expected) return;
        bytes = this.take(expected);
        this.expected = null;
        head = decodeHeader(bytes);
      } catch (err) {
        this.fail(err);
        return;
      }
      this.dispatch(bytes, head);
    }
  }

  /** The buffered bytes' first FIXED_HEADER, the first chunks joined only when the header is cut between them. */
  private fixedHeader(): Buffer {
    if ((this.parts[0] as Buffer).length < FIXED_HEADER) this.parts = [Buffer.concat(this.parts, this.buffered)];
    return this.parts[0] as Buffer;
  }

  /** The next `length` bytes: the chunks they span joined once, what follows kept for the next message. */
  private take(length: number): Buffer {
    const joined = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.buffered);
    const rest = joined.subarray(length);
    this.parts = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return joined.subarray(0, length);
  }

  /** A message's body, read only for a reply awaited or a signal handed on; an unreadable one ends the connection. */
  private body(bytes: Buffer, head: MessageHead): DbusValue[] | undefined {
    try {
      return decodeBody(bytes, head);
    } catch (err) {
      this.fail(err);
      return undefined;
    }
  }

  private dispatch(bytes: Buffer, head: MessageHead): void {
    const m = head.message;
    if (m.kind === 'return' || m.kind === 'error') {
      const waiter = m.replySerial === undefined ? undefined : this.pending.get(m.replySerial);
      if (!waiter) return;
      const body = this.body(bytes, head);
      if (!body) return;
      this.pending.delete(m.replySerial as number);
      if (m.kind === 'return') waiter.resolve(body);
      else waiter.reject(new DbusCallError(m.errorName ?? 'org.freedesktop.DBus.Error.Failed', String(body[0] ?? '')));
      return;
    }
    if (m.kind !== 'signal') return; // Method calls to us: nothing is exported, and the bus answers for us when a call needs a reply.
    if (m.sender === BUS_NAME && m.interface === BUS_NAME && m.member === 'NameOwnerChanged') this.ownerChanged(bytes, head);
    if (this.closed) return;
    let body: DbusValue[] | undefined;
    for (const s of this.subscriptions) {
      if (s.match.path !== m.path || s.match.interface !== m.interface || s.match.member !== m.member) continue;
      if (s.match.sender !== undefined && m.sender !== this.owners.get(s.match.sender)?.unique) {
        s.options.onOtherSender?.(m.sender ?? '');
        continue;
      }
      body ??= this.body(bytes, head);
      if (!body) return;
      s.handler(body, { ...m, body });
    }
  }

  /** NameOwnerChanged(name, old owner, new owner) from the bus itself: an empty new owner means none. */
  private ownerChanged(bytes: Buffer, head: MessageHead): void {
    if (head.message.signature !== 'sss') return;
    const [name, , unique] = this.body(bytes, head) ?? [];
    const owner = typeof name === 'string' ? this.owners.get(name) : undefined;
    if (owner) owner.unique = unique ? String(unique) : null;
  }

  /** A message we cannot read leaves the stream out of step, or a peer not to trust: the connection is over, as libdbus ends it. */
  private fail(err: unknown): void {
    this.socket.destroy();
    this.end(err as Error);
  }

  private end(err?: Error): void {
    if (this.closed) return;
    this.closed = true;
    const reason = new KubeletError('KLT_ERR_DBUS_UNAVAILABLE', `the D-Bus connection ended${err ? `: ${err.message}` : ''}`);
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
    for (const h of this.closeHandlers.splice(0)) h(err);
  }
}
