import protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { loadCriProto, warmUpCriCodecs } from '../../src/adapters/cri-grpc/proto.js';
import { GENERATED_TYPES_CONVERSION } from '../../src/adapters/proto-service.js';
import { exemplar, warmUpMethods } from '../../src/adapters/proto-warm-up.js';
import { CRI_DESCRIPTOR } from '../../src/generated/cri-descriptor.js';

/** A root of its own: the process-wide one may have been warmed by another test already. */
const freshRoot = () => protobuf.Root.fromJSON(CRI_DESCRIPTOR);

describe('exemplar', () => {
  it('sets every field, nested messages, lists, maps and enums included, and survives the codec unchanged', () => {
    const type = freshRoot().lookupType('runtime.v1.ContainerStatusResponse');
    const message = exemplar(type);
    const status = message.status as Record<string, unknown>;
    expect(Object.keys(status).sort()).toEqual(type.lookupType('ContainerStatus').fieldsArray.map((f) => f.name).sort());
    expect(status.state).toBe('CONTAINER_UNKNOWN');
    expect(status.labels).toEqual({ k: 'x' });
    expect(status.mounts).toEqual([expect.objectContaining({ container_path: 'x', readonly: true })]);
    expect(status.created_at).toBe('1');
    const decoded = type.toObject(type.decode(type.encode(type.fromObject(message)).finish()), GENERATED_TYPES_CONVERSION);
    expect((decoded.status as Record<string, unknown>).image).toEqual(status.image);
    expect((decoded.status as Record<string, unknown>).labels).toEqual({ k: 'x' });
  });
});

describe('warmUpCriCodecs', () => {
  it('leaves the request and answer types of a pod start and end with their coders built, and no others', () => {
    // protobufjs puts a type's built coders on it as own properties; a type never used has none.
    expect(Object.hasOwn(freshRoot().lookupType('runtime.v1.ListContainersResponse'), 'encode')).toBe(false);
    warmUpCriCodecs();
    const { root } = loadCriProto();
    const built = (name: string) => {
      const type = root.lookupType(`runtime.v1.${name}`);
      return Object.hasOwn(type, 'encode') && Object.hasOwn(type, 'decode') && Object.hasOwn(type, 'toObject');
    };
    for (const name of ['RunPodSandboxRequest', 'CreateContainerRequest', 'ContainerStatusResponse', 'ListContainersResponse', 'ListPodSandboxResponse', 'ImageStatusResponse', 'RemovePodSandboxResponse']) {
      expect(built(name), name).toBe(true);
    }
    // Nested types a real answer can carry are reached too.
    expect(built('ContainerStatus')).toBe(true);
    expect(built('LinuxContainerSecurityContext')).toBe(true);
  });

  it('names only calls the services have', () => {
    const root = freshRoot();
    expect(() => warmUpMethods(root, 'runtime.v1.RuntimeService', ['RunPodSandbox', 'NoSuchCall'], GENERATED_TYPES_CONVERSION)).toThrow('runtime.v1.RuntimeService has no method NoSuchCall');
  });
});
