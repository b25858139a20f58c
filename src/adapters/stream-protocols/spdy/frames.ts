/**
 * SPDY/3 frames as plain values, and their wire layout (SPDY/3 draft section 2.2 and 2.6; the layout
 * golang.org/x/net/spdy reads and writes, which is what kubectl's spdystream speaks). Header blocks
 * stay compressed here: their zlib contexts belong to a session (header-compression.ts), so this
 * file stays pure and each frame can be encoded and decoded on its own.
 *
 * Every frame starts with 8 bytes: a control bit, then for a control frame the version (3) and type,
 * for a data frame the stream id; then 8 bits of flags and a 24-bit payload length.
 */

export const SPDY_VERSION = 3;
export const FRAME_HEADER_BYTES = 8;
/** The 24-bit length field's ceiling. */
export const MAX_FRAME_PAYLOAD = 0xffffff;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;
const FLAG_SETTINGS_CLEAR = 0x01;

const enum ControlType {
  SynStream = 1,
  SynReply = 2,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  Headers = 8,
  WindowUpdate = 9,
}

/** RST_STREAM status codes (draft section 2.6.3). */
export const RstStatus = {
  ProtocolError: 1,
  InvalidStream: 2,
  RefusedStream: 3,
  UnsupportedVersion: 4,
  Cancel: 5,
  InternalError: 6,
  FlowControlError: 7,
  StreamInUse: 8,
  StreamAlreadyClosed: 9,
  FrameTooLarge: 11,
} as const;

/** GOAWAY status codes (draft section 2.6.6). */
export const GoAwayStatus = { Ok: 0, ProtocolError: 1, InternalError: 2 } as const;

export interface SettingsEntry {
  flags: number;
  id: number;
  value: number;
}

export type SpdyFrame =
  | { type: 'data'; streamId: number; fin: boolean; data: Buffer }
  | {
      type: 'synStream'; streamId: number; associatedStreamId: number; priority: number; slot: number;
      fin: boolean; unidirectional: boolean; headerBlock: Buffer;
    }
  | { type: 'synReply'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'rstStream'; streamId: number; status: number }
  | { type: 'settings'; clear: boolean; entries: SettingsEntry[] }
  | { type: 'ping'; id: number }
  | { type: 'goAway'; lastGoodStreamId: number; status: number }
  | { type: 'headers'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'windowUpdate'; streamId: number; delta: number }
  /** A control frame of a type SPDY/3 does not define: the draft says to ignore it. */
  | { type: 'unknown'; controlType: number };

/** A frame that breaks the layout: the peer does not speak SPDY/3 (or lost sync), so the session ends. */
export class SpdyFrameError extends Error {
  constructor(message: string, readonly goAwayStatus: number = GoAwayStatus.ProtocolError) {
    super(message);
    this.name = 'SpdyFrameError';
  }
}

const ID_MASK = 0x7fffffff;

function header(firstWord: number, flags: number, length: number): Buffer {
  if (length > MAX_FRAME_PAYLOAD) throw new RangeError(`SPDY frame payload of ${length} bytes is over the 24-bit limit`);
  const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  head.writeUInt32BE(firstWord >>> 0, 0);
  head.writeUInt32BE(((flags & 0xff) << 24 | length) >>> 0, 4);
  return head;
}

function control(type: ControlType, flags: number, payload: Buffer): Buffer {
  return Buffer.concat([header((0x8000 | SPDY_VERSION) << 16 | type, flags, payload.length), payload]);
}

function words(...values: number[]): Buffer {
  const out = Buffer.allocUnsafe(values.length * 4);
  values.forEach((v, i) => out.writeUInt32BE(v >>> 0, i * 4));
  return out;
}

const finFlag = (fin: boolean) => (fin ? FLAG_FIN : 0);

export function encodeFrame(frame: SpdyFrame): Buffer {
  switch (frame.type) {
    case 'data':
      return Buffer.concat([header(frame.streamId & ID_MASK, finFlag(frame.fin), frame.data.length), frame.data]);
    case 'synStream': {
      const fixed = Buffer.allocUnsafe(10);
      fixed.writeUInt32BE(frame.streamId & ID_MASK, 0);
      fixed.writeUInt32BE(frame.associatedStreamId & ID_MASK, 4);
      fixed.writeUInt8((frame.priority & 0x7) << 5, 8);
      fixed.writeUInt8(frame.slot & 0xff, 9);
      const flags = finFlag(frame.fin) | (frame.unidirectional ? FLAG_UNIDIRECTIONAL : 0);
      return control(ControlType.SynStream, flags, Buffer.concat([fixed, frame.headerBlock]));
    }
    case 'synReply':
      return control(ControlType.SynReply, finFlag(frame.fin), Buffer.concat([words(frame.streamId & ID_MASK), frame.headerBlock]));
    case 'headers':
      return control(ControlType.Headers, finFlag(frame.fin), Buffer.concat([words(frame.streamId & ID_MASK), frame.headerBlock]));
    case 'rstStream':
      return control(ControlType.RstStream, 0, words(frame.streamId & ID_MASK, frame.status));
    case 'settings': {
      const payload = Buffer.allocUnsafe(4 + frame.entries.length * 8);
      payload.writeUInt32BE(frame.entries.length, 0);
      frame.entries.forEach((e, i) => {
        payload.writeUInt32BE(((e.flags & 0xff) << 24 | (e.id & 0xffffff)) >>> 0, 4 + i * 8);
        payload.writeUInt32BE(e.value >>> 0, 8 + i * 8);
      });
      return control(ControlType.Settings, frame.clear ? FLAG_SETTINGS_CLEAR : 0, payload);
    }
    case 'ping':
      return control(ControlType.Ping, 0, words(frame.id));
    case 'goAway':
      return control(ControlType.GoAway, 0, words(frame.lastGoodStreamId & ID_MASK, frame.status));
    case 'windowUpdate':
      return control(ControlType.WindowUpdate, 0, words(frame.streamId & ID_MASK, frame.delta & ID_MASK));
    case 'unknown':
      throw new TypeError(`cannot encode a control frame of unknown type ${frame.controlType}`);
  }
}

/** The payload length a frame header announces (bytes 5–7), so a reader knows how much to wait for. */
export function announcedPayloadLength(head: Buffer): number {
  return head.readUIntBE(5, 3);
}

function expectLength(name: string, payload: Buffer, exact: number): void {
  if (payload.length !== exact) throw new SpdyFrameError(`${name} frame with a ${payload.length}-byte payload (must be ${exact})`);
}

function expectAtLeast(name: string, payload: Buffer, least: number): void {
  if (payload.length < least) throw new SpdyFrameError(`${name} frame with a ${payload.length}-byte payload (must be at least ${least})`);
}

/** Decodes one whole frame (header and payload, nothing more); throws SpdyFrameError on a bad layout. */
export function decodeFrame(bytes: Buffer): SpdyFrame {
  if (bytes.length < FRAME_HEADER_BYTES) throw new SpdyFrameError(`frame of ${bytes.length} bytes is shorter than its header`);
  const first = bytes.readUInt32BE(0);
  const flags = bytes.readUInt8(4);
  const length = announcedPayloadLength(bytes);
  if (bytes.length !== FRAME_HEADER_BYTES + length) throw new SpdyFrameError(`frame announces ${length} payload bytes but has ${bytes.length - FRAME_HEADER_BYTES}`);
  const payload = bytes.subarray(FRAME_HEADER_BYTES);
  const fin = (flags & FLAG_FIN) !== 0;
  if ((first & 0x80000000) === 0) {
    const streamId = first & ID_MASK;
    if (streamId === 0) throw new SpdyFrameError('data frame on stream 0');
    return { type: 'data', streamId, fin, data: payload };
  }
  const version = (first >>> 16) & 0x7fff;
  if (version !== SPDY_VERSION) throw new SpdyFrameError(`control frame of SPDY version ${version}, not ${SPDY_VERSION}`, GoAwayStatus.ProtocolError);
  const type = first & 0xffff;
  switch (type) {
    case ControlType.SynStream:
      expectAtLeast('SYN_STREAM', payload, 10);
      return {
        type: 'synStream', streamId: payload.readUInt32BE(0) & ID_MASK, associatedStreamId: payload.readUInt32BE(4) & ID_MASK,
        priority: payload.readUInt8(8) >>> 5, slot: payload.readUInt8(9), fin, unidirectional: (flags & FLAG_UNIDIRECTIONAL) !== 0,
        headerBlock: payload.subarray(10),
      };
    case ControlType.SynReply:
      expectAtLeast('SYN_REPLY', payload, 4);
      return { type: 'synReply', streamId: payload.readUInt32BE(0) & ID_MASK, fin, headerBlock: payload.subarray(4) };
    case ControlType.Headers:
      expectAtLeast('HEADERS', payload, 4);
      return { type: 'headers', streamId: payload.readUInt32BE(0) & ID_MASK, fin, headerBlock: payload.subarray(4) };
    case ControlType.RstStream:
      expectLength('RST_STREAM', payload, 8);
      return { type: 'rstStream', streamId: payload.readUInt32BE(0) & ID_MASK, status: payload.readUInt32BE(4) };
    case ControlType.Settings: {
      expectAtLeast('SETTINGS', payload, 4);
      const count = payload.readUInt32BE(0);
      expectLength('SETTINGS', payload, 4 + count * 8);
      const entries: SettingsEntry[] = [];
      for (let i = 0; i < count; i++) {
        const idWord = payload.readUInt32BE(4 + i * 8);
        entries.push({ flags: idWord >>> 24, id: idWord & 0xffffff, value: payload.readUInt32BE(8 + i * 8) });
      }
      return { type: 'settings', clear: (flags & FLAG_SETTINGS_CLEAR) !== 0, entries };
    }
    case ControlType.Ping:
      expectLength('PING', payload, 4);
      return { type: 'ping', id: payload.readUInt32BE(0) };
    case ControlType.GoAway:
      expectLength('GOAWAY', payload, 8);
      return { type: 'goAway', lastGoodStreamId: payload.readUInt32BE(0) & ID_MASK, status: payload.readUInt32BE(4) };
    case ControlType.WindowUpdate:
      expectLength('WINDOW_UPDATE', payload, 8);
      return { type: 'windowUpdate', streamId: payload.readUInt32BE(0) & ID_MASK, delta: payload.readUInt32BE(4) & ID_MASK };
    default:
      return { type: 'unknown', controlType: type };
  }
}
