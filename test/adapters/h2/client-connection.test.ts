/**
 * Our HTTP/2 client connection against node's HTTP/2 server (nghttp2): what the protocol asks of a
 * client is checked against a real peer that holds it to it — windows the body must wait for, a
 * limit on open streams, padded and continued frames, resets, pings and GOAWAY.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, createServer, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type SecureServerOptions, type ServerHttp2Session } from 'node:http2';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientConnection, type HeaderFields, type StreamFailure } from '../../../src/adapters/h2/client-connection.js';
import { builtModule, runScriptInChild } from '../../support/script-in-child.js';

type Handler = (req: Http2ServerRequest, res: Http2ServerResponse, body: Buffer) => void;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(handler: Handler, options: Omit<SecureServerOptions, 'key' | 'cert'> = {}): Promise<{ path: string; server: Http2Server; sessions: ServerHttp2Session[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-h2-'));
  const path = join(dir, 'h2.sock');
  const sessions: ServerHttp2Session[] = [];
  const server = createServer(options, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  server.on('session', (s) => sessions.push(s));
  server.listen(path);
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((done) => server.close(done));
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, server, sessions };
}

function client(path: string): ClientConnection {
  const connection = new ClientConnection(connect(path), {});
  cleanups.push(() => connection.close());
  return connection;
}

interface Answer { headers: HeaderFields[]; body: Buffer }

/** One request; its answer (every header block, the body) or its failure. */
function call(connection: ClientConnection, path: string, body: Buffer = Buffer.alloc(0), extra: Array<[string, string]> = []): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: HeaderFields[] = [];
    const chunks: Buffer[] = [];
    const stream = connection.request([[':method', 'POST'], [':scheme', 'http'], [':path', path], [':authority', 'localhost'], ...extra], body, {
      onHeaders: (fields) => headers.push(fields),
      onData: (chunk) => {
        chunks.push(chunk);
        stream.consumed(chunk.length);
      },
      onEnd: () => resolve({ headers, body: Buffer.concat(chunks) }),
      onFailure: (failure: StreamFailure) => reject(Object.assign(new Error(failure.message), failure)),
    });
  });
}

const field = (answer: Answer, name: string, block = 0) => answer.headers[block]?.find(([n]) => n === name)?.[1];

/** The server echoes the body, with its length and the request's path in headers. */
const echo: Handler = (req, res, body) => {
  res.writeHead(200, { 'x-length': String(body.length), 'x-path': req.url });
  res.end(body);
};

describe('ClientConnection', () => {
  it('sends requests with their bodies and reads the answers, many at once on one connection', async () => {
    const { path, sessions } = await serve(echo);
    const connection = client(path);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(connection, `/m/${i}`, Buffer.from(`body ${i}`))));
    answers.forEach((answer, i) => {
      expect(field(answer, ':status')).toBe('200');
      expect(field(answer, 'x-path')).toBe(`/m/${i}`);
      expect(answer.body.toString()).toBe(`body ${i}`);
    });
    expect(sessions).toHaveLength(1);
  });

  it('holds a body back until the server\'s windows open, and sends it in frames the server takes', async () => {
    // The server lets 100 bytes in before it reads: the rest waits for its WINDOW_UPDATEs.
    const { path } = await serve(echo, { settings: { initialWindowSize: 100 } });
    const connection = client(path);
    const big = Buffer.alloc(200_000, 7);
    big.write('start');
    const answer = await call(connection, '/big', big);
    expect(field(answer, 'x-length')).toBe('200000');
    expect(answer.body.equals(big)).toBe(true);
  });

  it('reads an answer of many DATA frames, and one whose frames are padded', async () => {
    const big = Buffer.alloc(100_000, 'x');
    const plain = await serve((_req, res) => res.end(big));
    expect((await call(client(plain.path), '/x')).body.equals(big)).toBe(true);
    const padded = await serve((_req, res) => {
      res.writeHead(200, { 'x-padded': 'yes' });
      res.end(Buffer.from('small'));
    }, { paddingStrategy: constants.PADDING_STRATEGY_MAX });
    const answer = await call(client(padded.path), '/x');
    expect(field(answer, 'x-padded')).toBe('yes');
    expect(answer.body.toString()).toBe('small');
  });

  it('gives its receive windows back as it reads, so an answer larger than them all comes whole', async () => {
    // 100 KB windows against a 1 MB answer: without WINDOW_UPDATEs for the stream and the connection the server would stall.
    const big = Buffer.alloc(1_000_000, 'w');
    const { path } = await serve((_req, res) => res.end(big));
    const connection = new ClientConnection(connect(path), { receiveWindow: 100_000, connectionReceiveWindow: 100_000 });
    cleanups.push(() => connection.close());
    const answers = await Promise.all([call(connection, '/a'), call(connection, '/b')]);
    for (const answer of answers) expect(answer.body.equals(big)).toBe(true);
  });

  it('reads a header block continued over CONTINUATION frames', async () => {
    const long = 'v'.repeat(6_000);
    const { path } = await serve((_req, res) => {
      res.writeHead(200, { 'x-a': long, 'x-b': long, 'x-c': long });
      res.end();
    });
    const answer = await call(client(path), '/x');
    expect([field(answer, 'x-a'), field(answer, 'x-b'), field(answer, 'x-c')]).toEqual([long, long, long]);
  });

  it('reads trailers as a second header block', async () => {
    const { path } = await serve((_req, res) => {
      res.addTrailers({ 'grpc-status': '5', 'grpc-message': 'not%20found' });
      res.end(Buffer.from('body'));
    });
    const answer = await call(client(path), '/x', Buffer.alloc(0), [['te', 'trailers']]);
    expect(answer.headers).toHaveLength(2);
    expect(answer.headers[1]).toEqual([['grpc-status', '5'], ['grpc-message', 'not%20found']]);
  });

  it('keeps to the server\'s limit on open streams: the others wait their turn', async () => {
    let open = 0;
    let most = 0;
    const { path } = await serve((_req, res, body) => {
      open += 1;
      most = Math.max(most, open);
      // Not a wait: the answer goes out a turn later, so the streams the client opened meanwhile are
      // open at once and `most` counts them; nothing here depends on time passing.
      setImmediate(() => {
        open -= 1;
        res.end(body);
      });
    }, { settings: { maxConcurrentStreams: 2 } });
    const connection = client(path);
    // The server's SETTINGS come with its first answer; from then on the limit holds.
    await call(connection, '/first');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call(connection, '/x', Buffer.from(String(i)))));
    expect(answers.map((a) => a.body.toString())).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('fails a stream the server resets, with its code, and keeps the connection for the next', async () => {
    const { path } = await serve((req, res, body) => {
      if (req.url === '/reset') req.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else res.end(body);
    });
    const connection = client(path);
    await expect(call(connection, '/reset')).rejects.toMatchObject({ rstCode: constants.NGHTTP2_INTERNAL_ERROR });
    expect((await call(connection, '/ok', Buffer.from('still here'))).body.toString()).toBe('still here');
  });

  it('answers the server\'s PING', async () => {
    const { path, sessions } = await serve(echo);
    const connection = client(path);
    await call(connection, '/x');
    const roundTrip = await new Promise<number>((resolve, reject) => {
      sessions[0]!.ping((err, ms) => (err ? reject(err) : resolve(ms)));
    });
    expect(roundTrip).toBeGreaterThanOrEqual(0);
  });

  it('finishes what the server took after its GOAWAY, refuses new streams, and ends once drained', async () => {
    let answerLater: (() => void) | undefined;
    const { path, sessions } = await serve((req, res, body) => {
      if (req.url === '/slow') answerLater = () => res.end(body);
      else res.end(body);
    });
    const connection = client(path);
    let closedSeen = false;
    const watched = new ClientConnection(connect(path), { onClosed: () => { closedSeen = true; } });
    cleanups.push(() => watched.close());
    await call(connection, '/x');
    await call(watched, '/x');
    const slow = call(watched, '/slow', Buffer.from('late'));
    await waitUntil(() => answerLater !== undefined);
    sessions[1]!.goaway(constants.NGHTTP2_NO_ERROR);
    await waitUntil(() => !watched.usable);
    expect(closedSeen).toBe(true);
    expect(() => watched.request([[':method', 'GET'], [':path', '/']], Buffer.alloc(0), noHandler)).toThrow();
    answerLater!();
    expect((await slow).body.toString()).toBe('late');
    await waitUntil(() => watched.closed);
    // The other connection is not touched.
    expect((await call(connection, '/x', Buffer.from('other'))).body.toString()).toBe('other');
  });

  it('fails every open stream when the connection drops, and fails at once when nothing listens', async () => {
    let taken = false;
    const { path, sessions } = await serve(() => { taken = true; /* never answers */ });
    const connection = client(path);
    const pending = call(connection, '/hang');
    // The server has the request: its end fails the stream as a dropped connection, not as one never sent.
    await waitUntil(() => taken);
    sessions[0]!.destroy();
    await expect(pending).rejects.toThrow(/closed|connection/);
    expect(connection.closed).toBe(true);
    await expect(call(client(join(tmpdir(), 'kts-h2-nowhere.sock')), '/x')).rejects.toThrow(/ENOENT/);
  });

  it('drops the rest of a stream it cancelled, and keeps decoding the connection\'s later answers', async () => {
    let answerLater: (() => void) | undefined;
    const { path } = await serve((req, res, body) => {
      if (req.url === '/cancelled') answerLater = () => { res.writeHead(200, { 'x-late': 'dropped' }); res.end(body); };
      else { res.writeHead(200, { 'x-late': 'kept' }); res.end(body); }
    });
    const connection = client(path);
    const events: string[] = [];
    const stream = connection.request([[':method', 'POST'], [':scheme', 'http'], [':path', '/cancelled'], [':authority', 'localhost']], Buffer.from('x'), {
      onHeaders: () => events.push('headers'), onData: () => events.push('data'), onEnd: () => events.push('end'), onFailure: () => events.push('failure'),
    });
    await waitUntil(() => answerLater !== undefined);
    stream.cancel();
    answerLater!();
    const answer = await call(connection, '/after', Buffer.from('y'));
    expect(field(answer, 'x-late')).toBe('kept');
    expect(events).toEqual([]);
  });
});

describe('ClientConnection holding the process', () => {
  // The property is the process's, so it is checked on a process of its own.
  it('holds the process open while a stream is open, and not once the answer came', async () => {
    // The server's latency under test: long enough for a process that nothing holds to end first.
    const { path } = await serve((_req, res) => void setTimeout(() => res.end('late answer'), 300));
    const script = `
      const { connect } = await import('node:net');
      const { ClientConnection } = await import(${builtModule('dist/src/adapters/h2/client-connection.js')});
      const connection = new ClientConnection(connect(${JSON.stringify(path)}), { holdsProcessWhileActive: true });
      const chunks = [];
      connection.request([[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'localhost']], Buffer.alloc(0), {
        onHeaders() {}, onData: (c) => chunks.push(c), onEnd: () => process.stdout.write(Buffer.concat(chunks)), onFailure: (f) => process.stdout.write(f.message),
      });`;
    // The child never closes the connection nor calls process.exit: it ends when its event loop is empty.
    const { code, stdout } = await runScriptInChild(script);
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'late answer' });
  });
});

const noHandler = { onHeaders: () => {}, onData: () => {}, onEnd: () => {}, onFailure: () => {} };

async function waitUntil(condition: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(condition()).toBe(true), { timeout: 5_000, interval: 5 });
}
