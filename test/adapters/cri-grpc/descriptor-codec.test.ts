/**
 * The CRI codec built from the generated descriptor (proto.ts) against the one @grpc/proto-loader
 * builds from the .proto text with the same options, as the daemon had it: for every message of
 * every method of both services, the same object encodes to the same bytes and the same bytes
 * decode to the same object.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { CRI_CONVERSION_OPTIONS, loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';

const PROTO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'proto', 'runtime', 'v1', 'api.proto');
const SERVICES = ['runtime.v1.RuntimeService', 'runtime.v1.ImageService'] as const;
/** How deep nested messages go in generated objects: CRI configs nest about four deep. */
const DEPTH = 4;

type Codec = { serialize: (value: object) => Buffer; deserialize: (bytes: Buffer) => object };
type MethodCodecs = Record<'requestSerialize' | 'responseSerialize', (value: object) => Buffer> & Record<'requestDeserialize' | 'responseDeserialize', (bytes: Buffer) => object>;

const reference = protoLoader.loadSync(PROTO, { keepCase: true, ...CRI_CONVERSION_OPTIONS });
const { root, runtimeService, imageService } = loadCriProto();
const ours: Record<string, Record<string, MethodCodecs>> = {
  'runtime.v1.RuntimeService': runtimeService as unknown as Record<string, MethodCodecs>,
  'runtime.v1.ImageService': imageService as unknown as Record<string, MethodCodecs>,
};
const theirs = (service: string) => reference[service] as unknown as Record<string, MethodCodecs & { path: string }>;

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
const uint64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
const SCALARS: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.string({ unit: 'grapheme', maxLength: 12 }),
  bytes: fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes)),
  bool: fc.boolean(),
  int32: fc.integer(), sint32: fc.integer(), sfixed32: fc.integer(),
  uint32: fc.nat(), fixed32: fc.nat(),
  int64, sint64: int64, sfixed64: int64,
  uint64, fixed64: uint64,
  double: fc.double({ noNaN: true }), float: fc.float({ noNaN: true }),
};

function valueOf(field: protobuf.Field, depth: number): fc.Arbitrary<unknown> | undefined {
  field.resolve();
  const type = field.resolvedType;
  if (type instanceof protobuf.Enum) return fc.constantFrom(...Object.keys(type.values));
  if (type instanceof protobuf.Type) return depth > 0 ? messageOf(type, depth - 1) : undefined;
  const scalar = SCALARS[field.type];
  if (!scalar) throw new Error(`no generator for ${field.fullName}'s type ${field.type}`);
  return scalar;
}

/** Objects of `type` as a caller would write them: any fields set, lists and maps of a few entries. */
function messageOf(type: protobuf.Type, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of type.fieldsArray) {
    const value = valueOf(field, depth);
    if (!value) continue;
    fields[field.name] = field.map ? fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 3 })
      : field.repeated ? fc.array(value, { maxLength: 3 }) : value;
  }
  return fc.record(fields, { requiredKeys: [] });
}

function codecsOf(service: string, method: string, side: 'request' | 'response'): { ours: Codec; theirs: Codec; type: protobuf.Type } {
  const rpc = root.lookupService(service).methods[method]!;
  rpc.resolve();
  const pick = (codecs: MethodCodecs): Codec => ({ serialize: codecs[`${side}Serialize`], deserialize: codecs[`${side}Deserialize`] });
  return {
    ours: pick(ours[service]![method]!),
    theirs: pick(theirs(service)[method]!),
    type: (side === 'request' ? rpc.resolvedRequestType : rpc.resolvedResponseType)!,
  };
}

const methodsOf = (service: string) => root.lookupService(service).methodsArray.map((m) => m.name);
const cases = SERVICES.flatMap((service) => methodsOf(service).flatMap((method) =>
  (['request', 'response'] as const).map((side) => [`${service.split('.').pop()}.${method} ${side}`, service, method, side] as const)));

describe('the CRI codec from the generated descriptor', () => {
  it('has the methods proto-loader finds in the proto, at the same paths', () => {
    for (const service of SERVICES) {
      expect(Object.keys(ours[service]!).sort()).toEqual(Object.keys(theirs(service)).sort());
      for (const [name, method] of Object.entries(theirs(service))) expect(ours[service]![name]).toHaveProperty('path', method.path);
    }
    // Each method's request and answer are checked below.
    expect(cases).toHaveLength(2 * SERVICES.reduce((n, service) => n + Object.keys(theirs(service)).length, 0));
  });

  it('keeps the proto\'s field names (snake_case), as the generated types have them', () => {
    expect(root.lookupType('runtime.v1.RunPodSandboxResponse').fieldsArray.map((f) => f.name)).toEqual(['pod_sandbox_id']);
  });

  it.each(cases)('%s: the same bytes as proto-loader\'s codec, and the same object back', (_name, service, method, side) => {
    const { ours: codec, theirs: reference, type } = codecsOf(service, method, side);
    fc.assert(fc.property(messageOf(type, DEPTH), (value) => {
      const bytes = codec.serialize(value);
      expect(Buffer.isBuffer(bytes)).toBe(true);
      expect(bytes.equals(reference.serialize(value))).toBe(true);
      expect(codec.deserialize(bytes)).toStrictEqual(reference.deserialize(bytes));
    }), { numRuns: 25 });
  });

  it('decodes an empty message with every default filled in, as proto-loader does', () => {
    for (const [, service, method, side] of cases) {
      const { ours: codec, theirs: reference } = codecsOf(service, method, side);
      expect(codec.deserialize(Buffer.alloc(0))).toStrictEqual(reference.deserialize(Buffer.alloc(0)));
    }
  });

  it('keeps int64 values beyond 2^53 exact', () => {
    const { ours: codec } = codecsOf('runtime.v1.RuntimeService', 'StopContainer', 'request');
    const back = codec.deserialize(codec.serialize({ container_id: 'c', timeout: '9223372036854775807' }));
    expect(back).toEqual({ container_id: 'c', timeout: '9223372036854775807' });
  });
});
