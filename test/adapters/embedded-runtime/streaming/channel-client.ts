/**
 * A test client for the channel.k8s.io WebSocket protocols, on `ws`: connects with the given
 * subprotocols, decodes every message (binary or base64) into per-channel bytes, and sends framed
 * data, v5 close signals and resize events. It knows the framing independently of the server's
 * code, so a framing mistake there shows up here.
 */
import WebSocket from 'ws';

export interface ChannelClient {
  ws: WebSocket;
  protocol: string;
  /** Bytes received so far per channel, in order (empty messages count in `messages` only). */
  received: Map<number, Buffer[]>;
  /** Every message as [channel, bytes], in order. */
  messages: Array<[number, Buffer]>;
  text(channel: number): string;
  bytes(channel: number): Buffer;
  /** `sent` is called once the message is handed to the socket (ws's send callback). */
  send(channel: number, data: Buffer | string, sent?: () => void): void;
  closeChannel(channel: number): void;
  /** Resolves on the server's answer to a ping sent now: it has read every message sent before it. */
  roundTrip(): Promise<void>;
  /** Resolves with the close code once the server closed the connection. */
  closed: Promise<number>;
}

export function connectChannels(url: string, protocols: string[]): Promise<ChannelClient> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), protocols);
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`HTTP ${res.statusCode}: ${body.trim()}`)));
    });
    ws.once('error', reject);
    const received = new Map<number, Buffer[]>();
    const messages: Array<[number, Buffer]> = [];
    const closed = new Promise<number>((done) => ws.once('close', (code) => done(code)));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      let channel: number;
      let bytes: Buffer;
      if (isBinary) {
        channel = data[0]!;
        bytes = data.subarray(1);
      } else {
        const text = data.toString('latin1');
        channel = text.charCodeAt(0) - 48;
        bytes = Buffer.from(text.slice(1), 'base64');
      }
      messages.push([channel, bytes]);
      received.set(channel, [...(received.get(channel) ?? []), bytes]);
    });
    ws.once('open', () => {
      const base64 = ws.protocol.includes('base64');
      const client: ChannelClient = {
        ws,
        protocol: ws.protocol,
        received,
        messages,
        closed,
        bytes: (channel) => Buffer.concat(received.get(channel) ?? []),
        text: (channel) => Buffer.concat(received.get(channel) ?? []).toString('utf8'),
        send(channel, data, sent) {
          const bytes = Buffer.from(data);
          const done = sent && (() => sent());
          if (base64) ws.send(String.fromCharCode(48 + channel) + bytes.toString('base64'), done);
          else ws.send(Buffer.concat([Buffer.of(channel), bytes]), done);
        },
        closeChannel(channel) {
          ws.send(Buffer.of(255, channel));
        },
        roundTrip() {
          return new Promise((pong) => {
            ws.once('pong', () => pong());
            ws.ping();
          });
        },
      };
      resolve(client);
    });
  });
}
