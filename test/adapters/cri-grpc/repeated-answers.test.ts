import type * as grpc from '@grpc/grpc-js';
import { describe, expect, it, vi } from 'vitest';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import { decodingRepeatedAnswers, encodingRepeatedAnswers } from '../../../src/adapters/cri-grpc/repeated-answers.js';

type Method = grpc.MethodDefinition<object, object>;
const method = (service: grpc.ServiceDefinition, name: string) => (service as Record<string, Method>)[name]!;

function containersAnswer(ids: string[]) {
  return {
    containers: ids.map((id) => ({
      id, pod_sandbox_id: 's', metadata: { name: 'app', attempt: 0 }, image: { image: 'busybox' }, image_ref: 'sha256:1',
      state: 'CONTAINER_RUNNING', created_at: '1795329354300000000', labels: { 'io.kubernetes.pod.uid': 'u' }, annotations: {},
    })),
  };
}

describe('decodingRepeatedAnswers', () => {
  const plain = loadCriProto().runtimeService;
  const encode = (answer: object) => method(plain, 'ListContainers').responseSerialize(answer);

  it('hands back the earlier object for the same bytes, frozen, and decodes other bytes anew', () => {
    const list = method(decodingRepeatedAnswers(plain, ['ListContainers']), 'ListContainers');
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
    const list = method(decodingRepeatedAnswers(plain, ['ListContainers']), 'ListContainers');
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

  it('leaves the other methods as they were', () => {
    const wrapped = decodingRepeatedAnswers(plain, ['ListContainers']);
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
