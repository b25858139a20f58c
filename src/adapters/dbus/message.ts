/**
 * D-Bus messages on the wire (little-endian, protocol version 1): the fixed header, the header
 * fields, then the body. Pure: a message to bytes and bytes to a message.
 */
import { DbusReader, DbusWriter, type DbusValue } from './marshal.js';
import { parseSignature } from './signature.js';

export type MessageKind = 'call' | 'return' | 'error' | 'signal';

export interface DbusMessage {
  kind: MessageKind;
  serial: number;
  /** NO_REPLY_EXPECTED = 1, NO_AUTO_START = 2. */
  flags?: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
  signature?: string;
  unixFds?: number;
  body?: DbusValue[];
}

const KIND_CODE: Record<MessageKind, number> = { call: 1, return: 2, error: 3, signal: 4 };
const KIND_OF: Record<number, MessageKind> = { 1: 'call', 2: 'return', 3: 'error', 4: 'signal' };

/** Header field codes and the type each one's variant holds. */
const FIELDS = [
  [1, 'path', 'o'],
  [2, 'interface', 's'],
  [3, 'member', 's'],
  [4, 'errorName', 's'],
  [5, 'replySerial', 'u'],
  [6, 'destination', 's'],
  [7, 'sender', 's'],
  [8, 'signature', 'g'],
  [9, 'unixFds', 'u'],
] as const;

type FieldKey = (typeof FIELDS)[number][1];
const FIELD_KEY = new Map<number, FieldKey>(FIELDS.map(([code, key]) => [code, key]));

/** A header field as the message's own type has it; a field of the wrong type from the peer is dropped. */
function setField(m: DbusMessage, key: FieldKey, value: DbusValue): void {
  if (key === 'replySerial' || key === 'unixFds') {
    if (typeof value === 'number') m[key] = value;
  } else if (typeof value === 'string') {
    m[key] = value;
  }
}

const LITTLE_ENDIAN = 0x6c; // 'l'
const PROTOCOL_VERSION = 1;
/** The fixed header: endianness, kind, flags, version, body length, serial, header fields' length. */
export const FIXED_HEADER = 16;
/** godbus's largest message, header and body (message.go's 1<<27): the specification's maximum, 128 MiB. */
export const MAX_MESSAGE_BYTES = 2 ** 27;

export function encodeMessage(m: DbusMessage): Buffer {
  const body = new DbusWriter();
  if (m.body && m.body.length > 0) body.write(m.signature ?? '', m.body);
  const fields: DbusValue[] = [];
  for (const [code, key, type] of FIELDS) {
    const v = m[key];
    if (v !== undefined && v !== '') fields.push([code, { signature: type, value: v }]);
  }
  const header = new DbusWriter();
  header.write('yyyyuua(yv)', [LITTLE_ENDIAN, KIND_CODE[m.kind], m.flags ?? 0, PROTOCOL_VERSION, body.length, m.serial, fields]);
  header.align(8);
  return Buffer.concat([header.toBuffer(), body.toBuffer()]);
}

/**
 * The whole message's length once its fixed header is in `buf` (at `offset`), else null. A
 * message longer than MAX_MESSAGE_BYTES is refused here, before any of it is buffered.
 */
export function messageLength(buf: Buffer, offset = 0): number | null {
  if (buf.length - offset < FIXED_HEADER) return null;
  if (buf[offset] !== LITTLE_ENDIAN) throw new Error('D-Bus peer sent a big-endian message');
  const version = buf[offset + 3];
  if (version !== PROTOCOL_VERSION) throw new Error(`D-Bus peer sent a message of protocol version ${version}, not ${PROTOCOL_VERSION}`);
  const bodyLength = buf.readUInt32LE(offset + 4);
  const fieldsLength = buf.readUInt32LE(offset + 12);
  const length = FIXED_HEADER + fieldsLength + ((8 - (fieldsLength % 8)) % 8) + bodyLength;
  if (length > MAX_MESSAGE_BYTES) {
    throw new Error(`D-Bus peer announced a message of ${length} bytes (body ${bodyLength}, header fields ${fieldsLength}), over the ${MAX_MESSAGE_BYTES}-byte limit`);
  }
  return length;
}

/** A message's header read, its body not yet: where the body lies in the buffer it came from. */
export interface MessageHead { message: DbusMessage; bodyStart: number; bodyEnd: number }

/** Reads the header of the message at `offset`; the body's signature is checked, its values are not read. */
export function decodeHeader(buf: Buffer, offset = 0): MessageHead {
  const r = new DbusReader(buf, offset, offset);
  const [, kind, flags, , bodyLength, serial, fields] = r.read('yyyyuua(yv)') as [number, number, number, number, number, number, [number, { value: DbusValue }][]];
  const m: DbusMessage = { kind: KIND_OF[kind] ?? 'call', serial, flags };
  for (const [code, v] of fields) {
    const key = FIELD_KEY.get(code);
    if (key) setField(m, key, v.value);
  }
  if (m.signature) parseSignature(m.signature);
  r.align(8);
  const bodyEnd = r.offset + bodyLength;
  if (bodyEnd > buf.length) throw new Error('D-Bus message is truncated');
  return { message: m, bodyStart: r.offset, bodyEnd };
}

/** Reads the body of a message whose header `decodeHeader` read: exactly its signature's values, no more, no fewer bytes. */
export function decodeBody(buf: Buffer, head: MessageHead): DbusValue[] {
  const signature = head.message.signature;
  if (!signature) {
    if (head.bodyEnd > head.bodyStart) throw new Error(`D-Bus message has a body of ${head.bodyEnd - head.bodyStart} bytes and no signature`);
    return [];
  }
  const r = new DbusReader(buf.subarray(head.bodyStart, head.bodyEnd));
  const values = r.read(signature);
  if (r.offset !== head.bodyEnd - head.bodyStart) {
    throw new Error(`D-Bus message body holds ${head.bodyEnd - head.bodyStart - r.offset} bytes its signature '${signature}' does not account for`);
  }
  return values;
}

export function decodeMessage(buf: Buffer, offset = 0): DbusMessage {
  const head = decodeHeader(buf, offset);
  return { ...head.message, body: decodeBody(buf, head) };
}
