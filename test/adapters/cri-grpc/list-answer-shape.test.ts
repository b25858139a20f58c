import { describe, expect, it } from 'vitest';
import { listAnswerShape } from '../../../src/adapters/cri-grpc/list-answer-shape.js';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';

const { root } = loadCriProto();
const SERVICE = 'runtime.v1.RuntimeService';

describe('listAnswerShape', () => {
  it('reads the list field and the entries\' map fields from the proto', () => {
    expect(listAnswerShape(root, SERVICE, 'ListPodSandbox')).toEqual({ field: 'items', entryMapFields: new Set([5, 6]) });
    expect(listAnswerShape(root, SERVICE, 'ListContainers')).toEqual({ field: 'containers', entryMapFields: new Set([8, 9]) });
  });

  it('refuses an answer that is not one list, and a method the service lacks', () => {
    expect(() => listAnswerShape(root, SERVICE, 'ContainerStatus')).toThrow(/ContainerStatusResponse is not one repeated message field numbered 1/);
    expect(() => listAnswerShape(root, SERVICE, 'NoSuchMethod')).toThrow(/NoSuchMethod's answer is not a message of the proto/);
  });
});
