/**
 * Decoding of HPACK's Huffman-coded string literals (RFC 7541 §5.2, Appendix B). Servers Huffman-code
 * most header values they send (Go's and nghttp2's encoders do whenever it is shorter), so every
 * response header block goes through here; decoding only, since our encoder sends raw literals.
 *
 * The code is canonical, so the lengths alone define it: they are kept grouped by length, the codes
 * are rebuilt from them at load, and a decoding automaton is built from those — four bits per step,
 * one table lookup each, never walking a tree bit by bit.
 */

/** A Huffman-coded string that breaks RFC 7541 §5.2. */
export class HuffmanError extends Error {
  override readonly name = 'HuffmanError';
}

/** The end-of-string symbol: only ever seen as padding, never whole inside a string. */
export const EOS = 256;

/**
 * Every symbol by its code length, as decimal symbols and inclusive ranges of them. Within a
 * length the codes follow the symbols' order, and each length's codes follow the shorter ones:
 * that is all a canonical code needs.
 */
const SYMBOLS_BY_LENGTH: ReadonlyArray<readonly [length: number, symbols: string]> = [
  [5, '48-50 97 99 101 105 111 115 116'],
  [6, '32 37 45-47 51-57 61 65 95 98 100 102-104 108-110 112 114 117'],
  [7, '58 66-87 89 106 107 113 118-122'],
  [8, '38 42 44 59 88 90'],
  [10, '33 34 40 41 63'],
  [11, '39 43 124'],
  [12, '35 62'],
  [13, '0 36 64 91 93 126'],
  [14, '94 125'],
  [15, '60 96 123'],
  [19, '92 195 208'],
  [20, '128 130 131 162 184 194 224 226'],
  [21, '153 161 167 172 176 177 179 209 216 217 227 229 230'],
  [22, '129 132-134 136 146 154 156 160 163 164 169 170 173 178 181 185-187 189 190 196 198 228 232 233'],
  [23, '1 135 137-141 143 147 149-152 155 157 158 165 166 168 174 175 180 182 183 188 191 197 231 239'],
  [24, '9 142 144 145 148 159 171 206 215 225 236 237'],
  [25, '199 207 234 235'],
  [26, '192 193 200-202 205 210 213 218 219 238 240 242 243 255'],
  [27, '203 204 211 212 214 221-223 241 244-248 250-254'],
  [28, '2-8 11 12 14-21 23-31 127 220 249'],
  [30, '10 13 22 256'],
];

const LONGEST = 30;

/** Each symbol's code length in bits, and its code in the low bits of a number. */
export const HUFFMAN_LENGTHS = new Uint8Array(EOS + 1);
export const HUFFMAN_CODES = new Uint32Array(EOS + 1);

{
  let code = 0;
  let previousLength = 0;
  let kraft = 0; // in units of 2^-LONGEST, so exactly 2^LONGEST when the code is complete
  for (const [length, symbols] of SYMBOLS_BY_LENGTH) {
    code *= 2 ** (length - previousLength);
    previousLength = length;
    for (const run of symbols.split(' ')) {
      const [first, last = first] = run.split('-').map(Number) as [number, number?];
      for (let symbol = first; symbol <= last; symbol++) {
        if (HUFFMAN_LENGTHS[symbol] !== 0) throw new Error(`the Huffman table lists symbol ${symbol} twice`);
        HUFFMAN_LENGTHS[symbol] = length;
        HUFFMAN_CODES[symbol] = code++;
        kraft += 2 ** (LONGEST - length);
      }
    }
  }
  // A typo in the lists above would make a code that is not prefix-free or leaves gaps: refuse to load.
  if (kraft !== 2 ** LONGEST || HUFFMAN_LENGTHS.includes(0)) throw new Error('the Huffman table is not a complete code');
}

// The code as a binary tree: node 0 is the root, a child >= 0 is an internal node, a child < 0 is
// the leaf of symbol -child - 1. A complete code over 257 symbols has 256 internal nodes.
const NODES = EOS;
const children = new Int32Array(NODES * 2);
/** For a node on the all-ones path, its depth; -1 for every other node. */
const onesDepth = new Int8Array(NODES).fill(-1);
onesDepth[0] = 0;
{
  let nodes = 1;
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const length = HUFFMAN_LENGTHS[symbol]!;
    const code = HUFFMAN_CODES[symbol]!;
    let node = 0;
    let allOnes = true;
    for (let bit = length - 1; bit > 0; bit--) {
      const one = (code >>> bit) & 1;
      allOnes &&= one === 1;
      const slot = node * 2 + one;
      if (children[slot] === 0) {
        children[slot] = nodes;
        if (allOnes) onesDepth[nodes] = length - bit;
        nodes++;
      }
      node = children[slot]!;
    }
    children[node * 2 + (code & 1)] = -symbol - 1;
  }
}

// The automaton: for each node and each 4-bit input, where it ends up and what it emits. Codes are
// at least 5 bits long, so four bits complete at most one symbol.
const NEXT = 0xff; // the node reached
const SYMBOL_SHIFT = 8; // the symbol completed, in bits 8..15
const EMITS = 1 << 16;
const HITS_EOS = 1 << 17;
/** The node reached is the root or at most 7 bits down the all-ones path: a string may end there. */
const MAY_END = 1 << 18;

const STEPS = new Uint32Array(NODES * 16);
for (let node = 0; node < NODES; node++) {
  for (let nibble = 0; nibble < 16; nibble++) {
    let at = node;
    let step = 0;
    for (let bit = 3; bit >= 0; bit--) {
      const child = children[at * 2 + ((nibble >>> bit) & 1)]!;
      if (child >= 0) {
        at = child;
        continue;
      }
      const symbol = -child - 1;
      if (symbol === EOS) step |= HITS_EOS;
      else step |= EMITS | (symbol << SYMBOL_SHIFT);
      at = 0;
    }
    const depth = onesDepth[at]!;
    if (depth >= 0 && depth <= 7) step |= MAY_END;
    STEPS[node * 16 + nibble] = step | at;
  }
}

/** Where decoded bytes go before they become a string; grown, never shrunk. */
let scratch = Buffer.allocUnsafeSlow(256);

const latin1Slice = (buffer: Buffer, start: number, end: number): string =>
  (buffer as Buffer & { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);

/** The string Huffman-coded in `source[start, end)`, its bytes read as latin1. */
export function decodeHuffman(source: Buffer, start: number, end: number): string {
  // No code is shorter than 5 bits, so this is the most symbols the input can hold.
  const most = Math.floor(((end - start) * 8) / 5);
  if (scratch.length < most) scratch = Buffer.allocUnsafeSlow(Math.max(most, scratch.length * 2));
  const out = scratch;
  let count = 0;
  let step = MAY_END; // at the root
  for (let i = start; i < end; i++) {
    const byte = source[i]!;
    step = STEPS[((step & NEXT) << 4) | (byte >>> 4)]!;
    if (step & EMITS) out[count++] = (step >>> SYMBOL_SHIFT) & 0xff;
    else if (step & HITS_EOS) throw new HuffmanError('the end-of-string symbol appears inside the string');
    step = STEPS[((step & NEXT) << 4) | (byte & 0x0f)]!;
    if (step & EMITS) out[count++] = (step >>> SYMBOL_SHIFT) & 0xff;
    else if (step & HITS_EOS) throw new HuffmanError('the end-of-string symbol appears inside the string');
  }
  if (!(step & MAY_END)) {
    const padding = onesDepth[step & NEXT]!;
    throw new HuffmanError(padding > 7
      ? `the padding is ${padding} bits long; it may be at most 7`
      : 'the string ends inside a code: its padding is not the leading bits of the end-of-string symbol');
  }
  return latin1Slice(out, 0, count);
}
