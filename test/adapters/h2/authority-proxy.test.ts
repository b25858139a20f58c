import { connect as h2connect, createServer as h2server, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFrames, fixedHeaderBlock, startAuthorityProxy } from '../../../src/adapters/h2/authority-proxy.js';
import { CLIENT_PREFACE, DEFAULT_MAX_FRAME_SIZE, FrameFlag, FrameType, frame } from '../../../src/adapters/h2/frames.js';
import { MAX_CONTINUATION_FRAMES, MAX_HEADER_LIST_FIELDS } from '../../../src/adapters/h2/limits.js';
import { encodeHeaderBlock, HpackDecoder } from '../../../src/adapters/h2/hpack.js';

const dir = mkdtempSync(join(tmpdir(), 'authority-proxy-'));
const target = join(dir, 'target.sock');
const front = join(dir, 'front.sock');
const seen: string[] = [];
const server = h2server();
server.on('stream', (stream, headers) => {
  seen.push(String(headers[':authority']));
  stream.respond({ ':status': 200 });
  stream.end(String(headers[':path']));
});
let proxy: { close(): Promise<void> };

/** One request with this authority, over a connection of its own (as a Go device plugin makes). */
function request(socket: string, authority: string, path = '/x'): Promise<{ status: number | undefined; body: string; rst: number }> {
  const session: ClientHttp2Session = h2connect('http://localhost', { createConnection: () => connect(socket) });
  return new Promise((resolve) => {
    const req = session.request({ ':path': path, ':authority': authority, 'x-long': 'v'.repeat(20_000) });
    let status: number | undefined;
    let body = '';
    req.on('response', (h) => { status = Number(h[':status']); });
    req.setEncoding('utf8').on('data', (c: string) => { body += c; });
    req.on('error', () => {});
    req.on('close', () => {
      session.close();
      resolve({ status, body, rst: req.rstCode ?? 0 });
    });
    req.end();
  });
}

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(target, () => r()));
  proxy = await startAuthorityProxy(front, () => Promise.resolve(target), pino({ level: 'silent' }), 'The test front');
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the authority proxy in front of kubelet.sock', () => {
  it('shows why it is there: node:http2 refuses a socket path as the authority', async () => {
    expect((await request(target, '/var/lib/kubelet/device-plugins/kubelet.sock')).rst).toBe(1);
  });

  it('passes a request whose authority is a socket path, as localhost, with its large headers split into CONTINUATION frames', async () => {
    const answer = await request(front, '/var/lib/kubelet/device-plugins/kubelet.sock', '/v1beta1.Registration/Register');
    expect(answer).toMatchObject({ status: 200, body: '/v1beta1.Registration/Register', rst: 0 });
    expect(seen.at(-1)).toBe('localhost');
  });

  it('leaves a host name as it is', async () => {
    expect((await request(front, 'example.com:80')).status).toBe(200);
    expect(seen.at(-1)).toBe('example.com:80');
  });

  it('rewrites only the authority of a header block', () => {
    const block = encodeHeaderBlock([[':method', 'POST'], [':authority', '/a/b.sock'], ['te', 'trailers']]);
    expect(new HpackDecoder().decode(fixedHeaderBlock(new HpackDecoder(), block))).toEqual([[':method', 'POST'], [':authority', 'localhost'], ['te', 'trailers']]);
  });

  it('reports the preface whole once, when the frame after the magic has fully arrived', () => {
    let prefaced = 0;
    const onData = clientFrames(() => {}, () => {}, () => { prefaced += 1; });
    const settings = frame(FrameType.Settings, 0, 0);
    onData(CLIENT_PREFACE);
    onData(settings.subarray(0, 4));
    expect(prefaced).toBe(0);
    onData(settings.subarray(4));
    onData(frame(FrameType.Settings, 0, 0));
    expect(prefaced).toBe(1);
  });

  describe('what node:http2 behind it would refuse, it refuses first: the connection is closed', () => {
    /** Feeds the preface and these frames; answers what was passed on and why it failed, if it did. */
    function feed(...frames: Buffer[]): { passed: Buffer[]; failed: string | null } {
      const passed: Buffer[] = [];
      let failed: string | null = null;
      const onData = clientFrames((b) => passed.push(b), (why) => { failed = why; });
      onData(Buffer.concat([CLIENT_PREFACE, ...frames]));
      return { passed, failed };
    }
    const block = encodeHeaderBlock([[':method', 'POST'], [':path', '/x'], [':authority', '/a/b.sock']]);

    it('passes a header block in HEADERS and CONTINUATION frames', () => {
      const { passed, failed } = feed(frame(FrameType.Headers, 0, 1, block.subarray(0, 4)), frame(FrameType.Continuation, FrameFlag.EndHeaders, 1, block.subarray(4)));
      expect(failed).toBeNull();
      expect(passed.length).toBeGreaterThan(1);
    });

    it('a frame past the default SETTINGS_MAX_FRAME_SIZE, before its payload arrives', () => {
      const header = frame(FrameType.Data, 0, 1, Buffer.alloc(DEFAULT_MAX_FRAME_SIZE + 1)).subarray(0, 9);
      expect(feed(header).failed).toBe(`a frame of ${DEFAULT_MAX_FRAME_SIZE + 1} bytes, past ${DEFAULT_MAX_FRAME_SIZE}`);
    });

    it('more CONTINUATION frames than nghttp2 allows', () => {
      const empties = Array.from({ length: MAX_CONTINUATION_FRAMES + 1 }, () => frame(FrameType.Continuation, 0, 1));
      expect(feed(frame(FrameType.Headers, 0, 1, block), ...empties).failed).toBe(`more than ${MAX_CONTINUATION_FRAMES} CONTINUATION frames`);
      const allowed = Array.from({ length: MAX_CONTINUATION_FRAMES - 1 }, () => frame(FrameType.Continuation, 0, 1));
      expect(feed(frame(FrameType.Headers, 0, 1, block), ...allowed, frame(FrameType.Continuation, FrameFlag.EndHeaders, 1)).failed).toBeNull();
    });

    it('a CONTINUATION with no header block open, on another stream, or another frame inside a block', () => {
      const outOfPlace = 'a CONTINUATION frame out of place, or another frame inside a header block';
      expect(feed(frame(FrameType.Continuation, FrameFlag.EndHeaders, 1, block)).failed).toBe(outOfPlace);
      expect(feed(frame(FrameType.Headers, 0, 1, block), frame(FrameType.Continuation, FrameFlag.EndHeaders, 3)).failed).toBe(outOfPlace);
      expect(feed(frame(FrameType.Headers, 0, 1, block), frame(FrameType.Data, 0, 1, Buffer.from('x'))).failed).toBe(outOfPlace);
    });

    it('a header list past node:http2\'s field count', () => {
      const many = encodeHeaderBlock(Array.from({ length: MAX_HEADER_LIST_FIELDS + 1 }, (_, i) => [`x-${i}`, 'v'] as const));
      expect(feed(frame(FrameType.Headers, FrameFlag.EndHeaders, 1, many)).failed).toMatch(/^a header list past /);
    });

    it('reads nothing more once it failed', () => {
      const passed: Buffer[] = [];
      const onData = clientFrames((b) => passed.push(b), () => {});
      onData(Buffer.concat([CLIENT_PREFACE, frame(FrameType.Continuation, 0, 1)]));
      const before = passed.length;
      onData(frame(FrameType.Ping, 0, 0, Buffer.alloc(8)));
      expect(passed.length).toBe(before);
    });
  });
});
