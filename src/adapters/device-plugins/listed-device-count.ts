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

/** The devices field entries in `bytes`; null when the bytes are not a message protobuf could read (the decoder then says why). */
export function listedDeviceCount(bytes: Uint8Array): number | null {
  let pos = 0;
  let count = 0;
  const varint = (): number | null => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= bytes.length) return null;
      const b = bytes[pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    // Longer varints are 64-bit values: skipped whole, never a length.
    while (pos < bytes.length && bytes[pos++]! >= 0x80);
    return Number.MAX_SAFE_INTEGER;
  };
  while (pos < bytes.length) {
    const tag = varint();
    if (tag === null) return null;
    switch (tag % 8) {
      case WIRE_VARINT:
        if (varint() === null) return null;
        break;
      case WIRE_FIXED64:
        pos += 8;
        break;
      case WIRE_FIXED32:
        pos += 4;
        break;
      case WIRE_LENGTH_DELIMITED: {
        const length = varint();
        if (length === null) return null;
        pos += length;
        if (Math.floor(tag / 8) === DEVICES_FIELD) count++;
        break;
      }
      default:
        return null;
    }
    if (pos > bytes.length) return null;
  }
  return count;
}
