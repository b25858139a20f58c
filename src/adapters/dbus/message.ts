/**
 * D-Bus messages on the wire (little-endian, protocol version 1): the fixed header, the header
 * fields, then the body. Pure: a message to bytes and bytes to a message.
 */
import { DbusReader, DbusWriter, type DbusValue } from './marshal.js';

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

/** A header field as the message's own type has it; a field of the wrong type from the peer is dropped. */
function setField(m: DbusMessage, key: FieldKey, value: DbusValue): void {
  if (key === 'replySerial' || key === 'unixFds') {
    if (typeof value === 'number') m[key] = value;
  } else if (typeof value === 'string') {
    m[key] = value;
  }
}

const LITTLE_ENDIAN = 0x6c; // 'l'
const FIXED_HEADER = 16;

export function encodeMessage(m: DbusMessage): Buffer {
  const body = new DbusWriter();
  if (m.body && m.body.length > 0) body.write(m.signature ?? '', m.body);
  const fields: DbusValue[] = [];
  for (const [code, key, type] of FIELDS) {
    const v = m[key];
    if (v !== undefined && v !== '') fields.push([code, { signature: type, value: v }]);
  }
  const header = new DbusWriter();
  header.write('yyyyuua(yv)', [LITTLE_ENDIAN, KIND_CODE[m.kind], m.flags ?? 0, 1, body.length, m.serial, fields]);
  header.align(8);
  return Buffer.concat([header.toBuffer(), body.toBuffer()]);
}

/** The whole message's length once its fixed header is in `buf` (at `offset`), else null. */
export function messageLength(buf: Buffer, offset = 0): number | null {
  if (buf.length - offset < FIXED_HEADER) return null;
  if (buf[offset] !== LITTLE_ENDIAN) throw new Error('D-Bus peer sent a big-endian message');
  const bodyLength = buf.readUInt32LE(offset + 4);
  const fieldsLength = buf.readUInt32LE(offset + 12);
  return FIXED_HEADER + fieldsLength + ((8 - (fieldsLength % 8)) % 8) + bodyLength;
}

export function decodeMessage(buf: Buffer, offset = 0): DbusMessage {
  const r = new DbusReader(buf, offset, offset);
  const [, kind, flags, , bodyLength, serial, fields] = r.read('yyyyuua(yv)') as [number, number, number, number, number, number, [number, { value: DbusValue }][]];
  const m: DbusMessage = { kind: KIND_OF[kind] ?? 'call', serial, flags };
  const known = new Map<number, FieldKey>(FIELDS.map(([code, key]) => [code, key]));
  for (const [code, v] of fields) {
    const key = known.get(code);
    if (key) setField(m, key, v.value);
  }
  r.align(8);
  const end = r.offset + bodyLength;
  m.body = m.signature ? new DbusReader(buf.subarray(r.offset, end)).read(m.signature) : [];
  return m;
}
