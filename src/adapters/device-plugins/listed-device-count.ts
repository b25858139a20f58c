/**
 * How many devices a ListAndWatch answer lists, read from its bytes without decoding them: the
 * answer is `repeated Device devices = 1`, so each device is one length-delimited field 1 at the
 * top level. Counting walks the tags and skips the bodies, so a list over the bound is refused
 * for a few microseconds per device instead of being decoded into objects first.
 */

const DEVICES_FIELD = 1;
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

/** A varint longer than this is no length or tag of a message under gRPC's limits. */
const MAX_VARINT_BYTES = 5;

/**
 * The devices field entries in `bytes`; null when the bytes are not a message protobuf could read
 * (the decoder then says why). One flat loop with no call per field: it runs few times in a
 * process, mostly before the JIT has compiled it, and a closure per varint cost tens of ms a list.
 */
export function listedDeviceCount(bytes: Uint8Array): number | null {
  const end = bytes.length;
  let pos = 0;
  let count = 0;
  while (pos < end) {
    let tag = 0;
    let scale = 1;
    let n = 0;
    let b = 0x80;
    while (b >= 0x80) {
      if (pos >= end || n === MAX_VARINT_BYTES) return null;
      b = bytes[pos++]!;
      tag += (b & 0x7f) * scale;
      scale *= 128;
      n++;
    }
    const wire = tag % 8;
    if (wire === WIRE_VARINT) {
      do {
        if (pos >= end) return null;
        b = bytes[pos++]!;
      } while (b >= 0x80);
    } else if (wire === WIRE_FIXED64) {
      pos += 8;
    } else if (wire === WIRE_FIXED32) {
      pos += 4;
    } else if (wire === WIRE_LENGTH_DELIMITED) {
      let length = 0;
      scale = 1;
      n = 0;
      b = 0x80;
      while (b >= 0x80) {
        if (pos >= end || n === MAX_VARINT_BYTES) return null;
        b = bytes[pos++]!;
        length += (b & 0x7f) * scale;
        scale *= 128;
        n++;
      }
      pos += length;
      if ((tag - wire) / 8 === DEVICES_FIELD) count++;
    } else {
      return null;
    }
    if (pos > end) return null;
  }
  return count;
}
