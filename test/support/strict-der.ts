/**
 * A strict DER reader for tests (X.690 section 10 and 11): it accepts only the one encoding DER
 * allows and throws, naming the offset, on anything else. A BER reader (OpenSSL's, an ASN.1
 * library's) forgives what a Go peer refuses (encoding/asn1 and cryptobyte are DER-strict), which is
 * how a CSR without its mandatory attributes field reached a real API server before any test saw it.
 *
 * Rejected: the indefinite length; a long-form length that is not the shortest (or below 128); a
 * high tag number below 31 or with a leading 0x80 byte; content running past its parent; bytes left
 * after the outermost element; a constructed universal type that must be primitive (and the reverse);
 * a BOOLEAN other than 0x00/0xff; an empty or non-minimal INTEGER; a BIT STRING whose unused bits
 * are more than 7, set, or declared on an empty string; a NULL with content; an OID sub-identifier
 * with a leading 0x80 byte; a SET whose elements are not in ascending order of their encodings; a
 * UTF8String that is not UTF-8; a PrintableString outside its alphabet.
 */

export interface DerNode {
  /** 0 universal, 1 application, 2 context-specific, 3 private. */
  tagClass: number;
  constructed: boolean;
  tagNumber: number;
  /** The whole element (identifier, length and content). */
  encoding: Uint8Array;
  content: Uint8Array;
  children: DerNode[];
}

export class DerError extends Error {}

const UNIVERSAL = { boolean: 1, integer: 2, bitString: 3, octetString: 4, null: 5, oid: 6, utf8String: 12, sequence: 16, set: 17, printableString: 19 } as const;
const PRIMITIVE_ONLY = new Set<number>([UNIVERSAL.boolean, UNIVERSAL.integer, UNIVERSAL.null, UNIVERSAL.oid]);
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** Reads one DER element that spans `bytes` exactly. */
export function parseStrictDer(bytes: Uint8Array): DerNode {
  const { node, end } = readElement(bytes, 0, bytes.length);
  if (end !== bytes.length) throw new DerError(`${bytes.length - end} bytes after the outermost element (at ${end})`);
  return node;
}

function readElement(bytes: Uint8Array, start: number, limit: number): { node: DerNode; end: number } {
  let at = start;
  const byte = (): number => {
    if (at >= limit) throw new DerError(`element at ${start} runs past its parent (at ${at})`);
    return bytes[at++]!;
  };
  const first = byte();
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tagNumber = first & 0x1f;
  if (tagNumber === 0x1f) {
    let b = byte();
    if (b === 0x80) throw new DerError(`tag number at ${start} has a leading 0x80 byte`);
    tagNumber = 0;
    for (;;) {
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
      b = byte();
    }
    if (tagNumber < 31) throw new DerError(`tag number ${tagNumber} at ${start} in the high-tag form`);
  }
  const lengthByte = byte();
  let length = lengthByte;
  if (lengthByte === 0x80) throw new DerError(`indefinite length at ${start}`);
  if (lengthByte > 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4) throw new DerError(`length of ${count} bytes at ${start}`);
    length = 0;
    for (let i = 0; i < count; i++) {
      const b = byte();
      if (i === 0 && b === 0) throw new DerError(`length at ${start} has a leading zero byte`);
      length = length * 256 + b;
    }
    if (length < 0x80) throw new DerError(`length ${length} at ${start} in the long form`);
  }
  const contentStart = at;
  const end = contentStart + length;
  if (end > limit) throw new DerError(`element at ${start} (length ${length}) runs past its parent`);
  const node: DerNode = {
    tagClass, constructed, tagNumber,
    encoding: bytes.subarray(start, end),
    content: bytes.subarray(contentStart, end),
    children: [],
  };
  if (constructed) {
    let child = contentStart;
    while (child < end) {
      const read = readElement(bytes, child, end);
      node.children.push(read.node);
      child = read.end;
    }
  }
  if (tagClass === 0) checkUniversal(node, start);
  return { node, end };
}

function checkUniversal(node: DerNode, at: number): void {
  const { tagNumber, constructed, content } = node;
  if (constructed && PRIMITIVE_ONLY.has(tagNumber)) throw new DerError(`universal type ${tagNumber} at ${at} is constructed`);
  if (!constructed && (tagNumber === UNIVERSAL.sequence || tagNumber === UNIVERSAL.set)) throw new DerError(`SEQUENCE or SET at ${at} is primitive`);
  if (constructed && (tagNumber === UNIVERSAL.bitString || tagNumber === UNIVERSAL.octetString || tagNumber === UNIVERSAL.utf8String || tagNumber === UNIVERSAL.printableString)) {
    throw new DerError(`string type ${tagNumber} at ${at} is constructed (DER strings are primitive)`);
  }
  switch (tagNumber) {
    case UNIVERSAL.boolean:
      if (content.length !== 1 || (content[0] !== 0 && content[0] !== 0xff)) throw new DerError(`BOOLEAN at ${at} is not one byte 0x00 or 0xff`);
      return;
    case UNIVERSAL.integer:
      if (content.length === 0) throw new DerError(`empty INTEGER at ${at}`);
      if (content.length > 1 && ((content[0] === 0 && content[1]! < 0x80) || (content[0] === 0xff && content[1]! >= 0x80))) {
        throw new DerError(`INTEGER at ${at} is not in its shortest form`);
      }
      return;
    case UNIVERSAL.bitString: {
      if (content.length === 0) throw new DerError(`BIT STRING at ${at} has no unused-bits byte`);
      const unused = content[0]!;
      if (unused > 7) throw new DerError(`BIT STRING at ${at} declares ${unused} unused bits`);
      if (content.length === 1 && unused !== 0) throw new DerError(`empty BIT STRING at ${at} declares unused bits`);
      if (unused > 0 && (content[content.length - 1]! & ((1 << unused) - 1)) !== 0) throw new DerError(`BIT STRING at ${at} has unused bits set`);
      return;
    }
    case UNIVERSAL.null:
      if (content.length !== 0) throw new DerError(`NULL at ${at} has content`);
      return;
    case UNIVERSAL.oid: {
      if (content.length === 0) throw new DerError(`empty OBJECT IDENTIFIER at ${at}`);
      let startOfSub = true;
      for (const b of content) {
        if (startOfSub && b === 0x80) throw new DerError(`OBJECT IDENTIFIER at ${at} has a sub-identifier with a leading 0x80 byte`);
        startOfSub = (b & 0x80) === 0;
      }
      if (!startOfSub) throw new DerError(`OBJECT IDENTIFIER at ${at} ends inside a sub-identifier`);
      return;
    }
    case UNIVERSAL.set:
      for (let i = 1; i < node.children.length; i++) {
        if (compareBytes(node.children[i - 1]!.encoding, node.children[i]!.encoding) > 0) throw new DerError(`SET at ${at} is not sorted (element ${i})`);
      }
      return;
    case UNIVERSAL.utf8String:
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(content);
      } catch {
        throw new DerError(`UTF8String at ${at} is not UTF-8`);
      }
      return;
    case UNIVERSAL.printableString:
      if (!PRINTABLE.test(Buffer.from(content).toString('latin1'))) throw new DerError(`PrintableString at ${at} has a character outside its alphabet`);
      return;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The node's child at `index`, which must be of the given class and number; throws naming `what`. */
export function expectChild(node: DerNode, index: number, what: string, tag: { tagClass?: number; tagNumber: number; constructed?: boolean }): DerNode {
  const child = node.children[index];
  if (child === undefined) throw new DerError(`${what}: missing (the enclosing element has ${node.children.length} elements)`);
  const tagClass = tag.tagClass ?? 0;
  if (child.tagClass !== tagClass || child.tagNumber !== tag.tagNumber || (tag.constructed !== undefined && child.constructed !== tag.constructed)) {
    throw new DerError(`${what}: expected class ${tagClass} tag ${tag.tagNumber}, found class ${child.tagClass} tag ${child.tagNumber}`);
  }
  return child;
}

/**
 * A PKCS #10 request read as Go's x509.ParseCertificateRequest reads it (RFC 2986): the
 * CertificationRequestInfo's version, subject, key and `[0] IMPLICIT` attributes (mandatory, an
 * empty SET when there are none), then the signature algorithm and the signature.
 */
export function readStrictCertificationRequest(der: Uint8Array): { info: DerNode; attributes: DerNode[]; signatureAlgorithm: DerNode; signature: Uint8Array } {
  const request = parseStrictDer(der);
  if (request.tagClass !== 0 || request.tagNumber !== UNIVERSAL.sequence) throw new DerError('CertificationRequest is not a SEQUENCE');
  if (request.children.length !== 3) throw new DerError(`CertificationRequest has ${request.children.length} elements, not 3`);
  const info = expectChild(request, 0, 'certificationRequestInfo', { tagNumber: UNIVERSAL.sequence });
  const version = expectChild(info, 0, 'certificationRequestInfo.version', { tagNumber: UNIVERSAL.integer });
  if (version.content.length !== 1 || version.content[0] !== 0) throw new DerError('certificationRequestInfo.version is not 0 (v1)');
  expectChild(info, 1, 'certificationRequestInfo.subject', { tagNumber: UNIVERSAL.sequence });
  expectChild(info, 2, 'certificationRequestInfo.subjectPKInfo', { tagNumber: UNIVERSAL.sequence });
  const attributes = expectChild(info, 3, 'certificationRequestInfo.attributes', { tagClass: 2, tagNumber: 0, constructed: true });
  if (info.children.length !== 4) throw new DerError(`certificationRequestInfo has ${info.children.length} elements, not 4`);
  for (let i = 1; i < attributes.children.length; i++) {
    if (compareBytes(attributes.children[i - 1]!.encoding, attributes.children[i]!.encoding) > 0) throw new DerError(`attributes (a SET OF) is not sorted (element ${i})`);
  }
  const signatureAlgorithm = expectChild(request, 1, 'signatureAlgorithm', { tagNumber: UNIVERSAL.sequence });
  const signatureBits = expectChild(request, 2, 'signature', { tagNumber: UNIVERSAL.bitString });
  if (signatureBits.content[0] !== 0) throw new DerError('signature has unused bits');
  return { info, attributes: attributes.children, signatureAlgorithm, signature: signatureBits.content.subarray(1) };
}
