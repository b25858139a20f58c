import type * as grpc from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import { listAnswerShape } from '../../../src/adapters/cri-grpc/list-answer-shape.js';
import { decodingRepeatedAnswers, encodingRepeatedAnswers } from '../../../src/adapters/cri-grpc/repeated-answers.js';

type Method = grpc.MethodDefinition<object, object>;
const method = (service: grpc.ServiceDefinition, name: string) => (service as Record<string, Method>)[name]!;

const LISTS = { ListContainers: listAnswerShape(loadCriProto().root, 'runtime.v1.RuntimeService', 'ListContainers') };

function containersAnswer(ids: string[], attempt = 0, labels: Record<string, string> = { 'io.kubernetes.pod.uid': 'u' }) {
  return {
    containers: ids.map((id) => ({
      id, pod_sandbox_id: 's', metadata: { name: 'app', attempt }, image: { image: 'busybox' }, image_ref: 'sha256:1',
      state: 'CONTAINER_RUNNING', created_at: '1795329354300000000', labels, annotations: { 'io.kubernetes.container.hash': 'h', b: 'c' },
    })),
  };
}

describe('decodingRepeatedAnswers', () => {
  const plain = loadCriProto().runtimeService;
  const encode = (answer: object) => method(plain, 'ListContainers').responseSerialize(answer);

  it('hands back the earlier object for the same bytes, frozen, and decodes other bytes anew', () => {
    const list = method(decodingRepeatedAnswers(plain, LISTS), 'ListContainers');
    const first = list.responseDeserialize(encode(containersAnswer(['a', 'b']))) as { containers: { id: string; labels: object }[] };
    const again = list.responseDeserialize(encode(containersAnswer(['a', 'b'])));
    expect(again).toBe(first);
    expect(first.containers.map((c) => c.id)).toEqual(['a', 'b']);
    expect(first.containers[0]!.labels).toEqual({ 'io.kubernetes.pod.uid': 'u' });
    expect(Object.isFrozen(first.containers[0]!.labels)).toBe(true);
    expect(() => (first.containers as unknown[]).push({})).toThrow(TypeError);

    const other = list.responseDeserialize(encode(containersAnswer(['a', 'c'])));
    expect(other).not.toBe(first);
  });

  it('keeps the four answers used most recently, so one-pod answers in between do not push out a full list asked for often', () => {
    const list = method(decodingRepeatedAnswers(plain, LISTS), 'ListContainers');
    const full = list.responseDeserialize(encode(containersAnswer(['a', 'b', 'c'])));
    // A full list between every two one-pod answers stays, however many one-pod answers come.
    for (const id of ['d', 'e', 'f', 'g', 'h', 'i', 'j', 'k']) {
      list.responseDeserialize(encode(containersAnswer([id])));
      list.responseDeserialize(encode(containersAnswer([`${id}2`])));
      expect(list.responseDeserialize(encode(containersAnswer(['a', 'b', 'c'])))).toBe(full);
    }
    // Four others in a row push it out.
    for (const id of ['l', 'm', 'n', 'o']) list.responseDeserialize(encode(containersAnswer([id])));
    expect(list.responseDeserialize(encode(containersAnswer(['a', 'b', 'c'])))).not.toBe(full);
  });

  it('hands back the earlier object for the same entries in another order, as containerd lists them', () => {
    const list = method(decodingRepeatedAnswers(plain, LISTS), 'ListContainers');
    const first = list.responseDeserialize(encode(containersAnswer(['a', 'b', 'c'])));
    expect(list.responseDeserialize(encode(containersAnswer(['c', 'a', 'b'])))).toBe(first);
    expect(list.responseDeserialize(encode(containersAnswer(['b', 'c', 'a'])))).toBe(first);
    // Fewer, more or other entries are another answer.
    expect(list.responseDeserialize(encode(containersAnswer(['c', 'a'])))).not.toBe(first);
    expect(list.responseDeserialize(encode(containersAnswer(['c', 'a', 'b', 'd'])))).not.toBe(first);
    expect(list.responseDeserialize(encode(containersAnswer(['c', 'a', 'b'], 1)))).not.toBe(first);
  });

  it('takes an entry whose labels and annotations come in another order for the same entry, as containerd sends them', () => {
    const decode = vi.fn(method(plain, 'ListContainers').responseDeserialize);
    const spied = { ...plain, ListContainers: { ...method(plain, 'ListContainers'), responseDeserialize: decode } } as grpc.ServiceDefinition;
    const list = method(decodingRepeatedAnswers(spied, LISTS), 'ListContainers');
    const first = list.responseDeserialize(encode(containersAnswer(['a', 'b'], 0, { x: '1', y: '2', z: '3' })));
    const swapped = encode(containersAnswer(['b', 'a'], 0, { z: '3', x: '1', y: '2' }));
    expect(swapped.equals(encode(containersAnswer(['b', 'a'], 0, { x: '1', y: '2', z: '3' })))).toBe(false);
    expect(list.responseDeserialize(swapped)).toBe(first);
    expect(decode).toHaveBeenCalledTimes(2);
    // A label of another value is another entry.
    expect(list.responseDeserialize(encode(containersAnswer(['a', 'b'], 0, { x: '1', y: '2', z: '4' })))).not.toBe(first);
  });

  it('decodes only the entries it has not seen lately, and the answer equals a whole decode', () => {
    const decode = vi.fn(method(plain, 'ListContainers').responseDeserialize);
    const spied = { ...plain, ListContainers: { ...method(plain, 'ListContainers'), responseDeserialize: decode } } as grpc.ServiceDefinition;
    const list = method(decodingRepeatedAnswers(spied, LISTS), 'ListContainers');
    const before = list.responseDeserialize(encode(containersAnswer(['a', 'b', 'c']))) as { containers: object[] };
    expect(decode).toHaveBeenCalledTimes(3);

    decode.mockClear();
    const bytes = encode(containersAnswer(['c', 'd', 'a']));
    const after = list.responseDeserialize(bytes) as { containers: object[] };
    expect(decode).toHaveBeenCalledTimes(1);
    expect(after).toEqual(method(plain, 'ListContainers').responseDeserialize(bytes));
    // The entries seen before are the very objects handed out before, frozen.
    expect(after.containers[0]).toBe(before.containers[2]);
    expect(after.containers[2]).toBe(before.containers[0]);
    expect(Object.isFrozen(after.containers[1])).toBe(true);
    expect(Object.isFrozen(after.containers)).toBe(true);
  });

  it('forgets an entry no answer has had for 64 answers, at the next of its checks every 64 answers', () => {
    const decode = vi.fn(method(plain, 'ListContainers').responseDeserialize);
    const spied = { ...plain, ListContainers: { ...method(plain, 'ListContainers'), responseDeserialize: decode } } as grpc.ServiceDefinition;
    const list = method(decodingRepeatedAnswers(spied, LISTS), 'ListContainers');
    list.responseDeserialize(encode(containersAnswer(['gone', 'kept'])));
    // A list asked for again and again keeps its entries, in whatever order it comes.
    for (let i = 0; i < 130; i++) list.responseDeserialize(encode(containersAnswer(i % 2 === 0 ? ['kept', `new${i}`] : [`new${i}`, 'kept'])));
    decode.mockClear();
    list.responseDeserialize(encode(containersAnswer(['kept', 'gone', 'other'])));
    // 'gone' and 'other' decoded; 'kept' still known.
    expect(decode).toHaveBeenCalledTimes(2);
  });

  it('decodes whole what is not a list of field 1 alone, and an empty list', () => {
    const list = method(decodingRepeatedAnswers(plain, LISTS), 'ListContainers');
    // Field 2 (unknown to ListContainersResponse) after an entry: decoded whole, the unknown field skipped.
    const bytes = Buffer.concat([encode(containersAnswer(['a'])), Buffer.from([0x12, 0x01, 0x78])]);
    const whole = method(plain, 'ListContainers').responseDeserialize(bytes);
    expect(whole).toMatchObject({ containers: [{ id: 'a' }] });
    expect(list.responseDeserialize(bytes)).toEqual(whole);
    expect(list.responseDeserialize(Buffer.alloc(0))).toEqual({ containers: [] });
  });

  it('leaves the other methods as they were', () => {
    const wrapped = decodingRepeatedAnswers(plain, LISTS);
    expect(method(wrapped, 'ContainerStatus')).toBe(method(plain, 'ContainerStatus'));
    expect(Object.keys(wrapped)).toEqual(Object.keys(plain));
  });
});

describe('encodingRepeatedAnswers', () => {
  it('encodes an answer around the same list once, and any other list anew', () => {
    const plain = loadCriProto().runtimeService;
    const serialize = vi.fn(method(plain, 'ListContainers').responseSerialize);
    const spied = { ...plain, ListContainers: { ...method(plain, 'ListContainers'), responseSerialize: serialize } } as grpc.ServiceDefinition;
    const list = method(encodingRepeatedAnswers(spied, { ListContainers: (a) => (a as { containers: unknown }).containers }), 'ListContainers');

    const containers = containersAnswer(['a']).containers;
    const first = list.responseSerialize({ containers });
    const again = list.responseSerialize({ containers });
    expect(again).toBe(first);
    expect(serialize).toHaveBeenCalledTimes(1);

    const changed = list.responseSerialize(containersAnswer(['b']));
    expect(serialize).toHaveBeenCalledTimes(2);
    expect(changed.equals(first)).toBe(false);
    expect(method(plain, 'ListContainers').responseDeserialize(first)).toMatchObject({ containers: [{ id: 'a' }] });
  });
});
