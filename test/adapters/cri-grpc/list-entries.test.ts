import { describe, expect, it } from 'vitest';
import { entrySpan, listEntries } from '../../../src/adapters/cri-grpc/list-entries.js';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import type { PodSandbox } from '../../../src/generated/runtime/v1/PodSandbox.js';

/** PodSandbox's map fields: labels (5) and annotations (6). */
const MAPS = new Set([5, 6]);

const list = loadCriProto().runtimeService.ListPodSandbox;
const sandbox = (id: string, labels: Record<string, string> = {}): PodSandbox => ({
  id, metadata: { name: id, uid: `uid-${id}`, namespace: 'default', attempt: 0 }, state: 'SANDBOX_READY', created_at: '1', labels,
});

describe('listEntries', () => {
  it('splits a list answer into spans that each decode as an answer of that one entry', () => {
    // One entry over 127 bytes, so its length takes a two-byte varint.
    const items = [sandbox('a'), sandbox('b', { big: 'x'.repeat(300) }), sandbox('c')];
    const bytes = list.responseSerialize({ items });
    const entries = listEntries(bytes, MAPS)!;
    const spans = entries.keys.map((_, i) => entrySpan(bytes, entries, i));
    expect(spans).toHaveLength(3);
    expect(spans.map((span) => list.responseDeserialize(span).items.map((item) => item.id))).toEqual([['a'], ['b'], ['c']]);
    expect(Buffer.concat(spans).equals(bytes)).toBe(true);
    expect(new Set(entries.keys).size).toBe(3);
  });

  it('keys the same entry alike, and others apart, however many entries were keyed in between', () => {
    const keyOf = (id: string, labels: Record<string, string> = {}) => listEntries(list.responseSerialize({ items: [sandbox(id, labels)] }), MAPS)!.keys[0]!;
    const first = keyOf('a', { x: '1', y: '2' });
    // More than the keys remembered from one call to the next, so earlier ones are forgotten.
    const others = new Set(Array.from({ length: 5000 }, (_, i) => keyOf(`s${i}`)));
    expect(others.size).toBe(5000);
    expect(others.has(first)).toBe(false);
    expect(keyOf('a', { y: '2', x: '1' })).toBe(first);
    expect(keyOf('a', { x: '1', y: '3' })).not.toBe(first);
  });

  it('keys an entry by its fields, its map pairs in any order', () => {
    const key = (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
      listEntries(list.responseSerialize({ items: [sandbox('a', labels)].map((s) => ({ ...s, annotations })) }), MAPS)!.keys[0];
    expect(key({ x: '1', y: '2' }, { p: 'q', r: 's' })).toBe(key({ y: '2', x: '1' }, { r: 's', p: 'q' }));
    expect(key({ x: '1', y: '2' })).not.toBe(key({ x: '1', y: '3' }));
    // A label is not an annotation.
    expect(key({ x: '1' })).not.toBe(key({}, { x: '1' }));
    // Without the map fields named, the order counts.
    const plainKey = (labels: Record<string, string>) => listEntries(list.responseSerialize({ items: [sandbox('a', labels)] }), new Set())!.keys[0];
    expect(plainKey({ x: '1', y: '2' })).not.toBe(plainKey({ y: '2', x: '1' }));
  });

  it('keys entries of hundreds of pairs and of many kilobytes alike, in any order, and apart when one pair differs', () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key-${i}`, `value-${i}-${'v'.repeat(i % 40)}`]));
    const reversed = Object.fromEntries(Object.entries(many).reverse());
    const answer = (labels: Record<string, string>) => list.responseSerialize({ items: [sandbox('a', labels), sandbox('b', { small: '1' })] });
    const [first, second] = [answer(many), answer(reversed)];
    expect(first.equals(second)).toBe(false);
    const [a, b] = [listEntries(first, MAPS)!, listEntries(second, MAPS)!];
    expect(first.length).toBeGreaterThan(8192);
    expect(a.keys).toEqual(b.keys);
    expect(listEntries(answer({ ...many, 'key-150': 'other' }), MAPS)!.keys[0]).not.toBe(a.keys[0]);
    // The small entry after the large one is keyed as it is alone.
    expect(a.keys[1]).toBe(listEntries(list.responseSerialize({ items: [sandbox('b', { small: '1' })] }), MAPS)!.keys[0]);
  });

  it('finds no entries in an empty answer', () => {
    expect(listEntries(Buffer.alloc(0), MAPS)).toEqual({ ends: [], keys: [] });
  });

  it('gives up on any other field and on a length past the end', () => {
    const bytes = list.responseSerialize({ items: [sandbox('a')] });
    expect(listEntries(Buffer.concat([bytes, Buffer.from([0x10, 0x01])]), MAPS)).toBeUndefined();
    expect(listEntries(bytes.subarray(0, bytes.length - 1), MAPS)).toBeUndefined();
    expect(listEntries(Buffer.from([0x0a]), MAPS)).toBeUndefined();
    // An entry with a varint field of 11 bytes, or one cut short.
    expect(listEntries(Buffer.from([0x0a, 0x0c, 0x38, ...Array<number>(10).fill(0x80), 0x01]), MAPS)).toBeUndefined();
    expect(listEntries(Buffer.from([0x0a, 0x02, 0x38, 0x80]), MAPS)).toBeUndefined();
    expect(listEntries(Buffer.from([0x0a, 0x03, 0x38, 0x80, 0x01]), MAPS)?.ends).toEqual([5]);
    // An entry whose own fields run past its length.
    expect(listEntries(Buffer.from([0x0a, 0x02, 0x0a, 0x05]), MAPS)).toBeUndefined();
    expect(listEntries(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), MAPS)).toBeUndefined();
  });
});
