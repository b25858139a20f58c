/**
 * HTTP/2's frames as bytes (RFC 9113 §4 and §6): the 9-byte frame header, the frame types and
 * flags the client connection uses, and the few frames it writes whole (SETTINGS, WINDOW_UPDATE,
 * PING's answer, RST_STREAM, GOAWAY).
 */

export const FRAME_HEADER_BYTES = 9;

/** What every connection starts with, before its first SETTINGS. */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export const enum FrameType {
  Data = 0x0,
  Headers = 0x1,
  Priority = 0x2,
  RstStream = 0x3,
  Settings = 0x4,
  PushPromise = 0x5,
  Ping = 0x6,
  GoAway = 0x7,
  WindowUpdate = 0x8,
  Continuation = 0x9,
}

export const enum FrameFlag {
  /** DATA and HEADERS: the sender's side of the stream ends; SETTINGS and PING: the answer to the peer's (ACK). */
  EndStream = 0x1,
  EndHeaders = 0x4,
  Padded = 0x8,
  Priority = 0x20,
}

export const enum Setting {
  HeaderTableSize = 0x1,
  EnablePush = 0x2,
  MaxConcurrentStreams = 0x3,
  InitialWindowSize = 0x4,
  MaxFrameSize = 0x5,
  MaxHeaderListSize = 0x6,
}

export const enum ErrorCode {
  NoError = 0x0,
  ProtocolError = 0x1,
  FlowControlError = 0x3,
  StreamClosed = 0x5,
  FrameSizeError = 0x6,
  RefusedStream = 0x7,
  Cancel = 0x8,
  CompressionError = 0x9,
  EnhanceYourCalm = 0xb,
}

/** The frame size every peer accepts until it says otherwise, and the largest window there is. */
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
export const DEFAULT_WINDOW_SIZE = 65_535;
export const MAX_WINDOW_SIZE = 2 ** 31 - 1;

export function writeFrameHeader(target: Buffer, offset: number, length: number, type: FrameType, flags: number, streamId: number): void {
  target[offset] = (length >>> 16) & 0xff;
  target[offset + 1] = (length >>> 8) & 0xff;
  target[offset + 2] = length & 0xff;
  target[offset + 3] = type;
  target[offset + 4] = flags;
  target.writeUInt32BE(streamId & MAX_WINDOW_SIZE, offset + 5);
}

export function frame(type: FrameType, flags: number, streamId: number, payload: Buffer = EMPTY): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  writeFrameHeader(out, 0, payload.length, type, flags, streamId);
  payload.copy(out, FRAME_HEADER_BYTES);
  return out;
}

export function settingsFrame(settings: ReadonlyArray<readonly [Setting, number]>): Buffer {
  const payload = Buffer.allocUnsafe(6 * settings.length);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FrameType.Settings, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment, 0);
  return frame(FrameType.WindowUpdate, 0, streamId, payload);
}

export function rstStreamFrame(streamId: number, code: ErrorCode): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(code, 0);
  return frame(FrameType.RstStream, 0, streamId, payload);
}

export function goAwayFrame(lastStreamId: number, code: ErrorCode): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeUInt32BE(lastStreamId, 0);
  payload.writeUInt32BE(code, 4);
  return frame(FrameType.GoAway, 0, 0, payload);
}

/**
 * A HEADERS or DATA frame's payload without its padding (and a HEADERS frame's priority fields),
 * or null when the padding claims more than the frame holds.
 */
export function unpadded(payload: Buffer, flags: number, priorityBytes: number): Buffer | null {
  let start = 0;
  let padding = 0;
  if (flags & FrameFlag.Padded) {
    if (payload.length < 1) return null;
    padding = payload[0]!;
    start = 1;
  }
  start += priorityBytes;
  const end = payload.length - padding;
  return end < start ? null : payload.subarray(start, end);
}

const EMPTY = Buffer.alloc(0);
