/**
 * The codecs built from the generated descriptors (proto-service.ts: the CRI's in cri-grpc/proto.ts,
 * the gRPC prober's health protocol) against the ones @grpc/proto-loader builds from the .proto text
 * with the same options, as the daemon had them: for every message of every method of every
 * service, the same object encodes to the same bytes and the same bytes decode to the same object.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import { GENERATED_TYPES_CONVERSION } from '../../../src/adapters/proto-service.js';
import { HEALTH_CONVERSION_OPTIONS, loadHealthProto } from '../../../src/adapters/probers/grpc-health-proto.js';
import { HEALTH_DESCRIPTOR } from '../../../src/generated/health-descriptor.js';

const PROTO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'proto');
/** How deep nested messages go in generated objects: CRI configs nest about four deep. */
const DEPTH = 4;

type Codec = { serialize: (value: object) => Buffer; deserialize: (bytes: Buffer) => object };
type MethodCodecs = Record<'requestSerialize' | 'responseSerialize', (value: object) => Buffer> & Record<'requestDeserialize' | 'responseDeserialize', (bytes: Buffer) => object>;
type Services = Record<string, Record<string, MethodCodecs & { path: string }>>;

/** One proto: our services (by fully qualified name) and reflection, and proto-loader's definition of the same file. */
interface Subject { root: protobuf.Root; ours: Services; reference: protoLoader.PackageDefinition }

function subject(file: string, conversion: protobuf.IConversionOptions, root: protobuf.Root, ours: Record<string, object>): Subject {
  return { root, ours: ours as Services, reference: protoLoader.loadSync(join(PROTO_DIR, file), { keepCase: true, ...conversion }) };
}

const cri = loadCriProto();
const SUBJECTS = [
  subject('runtime/v1/api.proto', GENERATED_TYPES_CONVERSION, cri.root, { 'runtime.v1.RuntimeService': cri.runtimeService, 'runtime.v1.ImageService': cri.imageService }),
  subject('grpc/health/v1/health.proto', HEALTH_CONVERSION_OPTIONS, protobuf.Root.fromJSON(HEALTH_DESCRIPTOR), { 'grpc.health.v1.Health': loadHealthProto().healthService }),
];
const theirs = ({ reference }: Subject, service: string) => reference[service] as unknown as Services[string];

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

function codecsOf(subject: Subject, service: string, method: string, side: 'request' | 'response'): { ours: Codec; theirs: Codec; type: protobuf.Type } {
  const rpc = subject.root.lookupService(service).methods[method]!;
  rpc.resolve();
  const pick = (codecs: MethodCodecs): Codec => ({ serialize: codecs[`${side}Serialize`], deserialize: codecs[`${side}Deserialize`] });
  return {
    ours: pick(subject.ours[service]![method]!),
    theirs: pick(theirs(subject, service)[method]!),
    type: (side === 'request' ? rpc.resolvedRequestType : rpc.resolvedResponseType)!,
  };
}

const cases = SUBJECTS.flatMap((subject) => Object.keys(subject.ours).flatMap((service) =>
  subject.root.lookupService(service).methodsArray.flatMap(({ name: method }) =>
    (['request', 'response'] as const).map((side) => [`${service.split('.').pop()}.${method} ${side}`, subject, service, method, side] as const))));

describe('the codecs from the generated descriptors', () => {
  it('have the methods proto-loader finds in the protos, at the same paths', () => {
    for (const subject of SUBJECTS) {
      const services = Object.keys(subject.reference).filter((name) => !('format' in subject.reference[name]!));
      expect(Object.keys(subject.ours).sort()).toEqual(services.sort());
      for (const service of services) {
        expect(Object.keys(subject.ours[service]!).sort()).toEqual(Object.keys(theirs(subject, service)).sort());
        for (const [name, method] of Object.entries(theirs(subject, service))) expect(subject.ours[service]![name]).toHaveProperty('path', method.path);
      }
    }
    // Each method's request and answer are checked below.
    const methods = SUBJECTS.flatMap((subject) => Object.keys(subject.ours).flatMap((service) => Object.keys(theirs(subject, service))));
    expect(cases).toHaveLength(2 * methods.length);
  });

  it('keep the proto\'s field names (snake_case), as the generated types have them', () => {
    expect(cri.root.lookupType('runtime.v1.RunPodSandboxResponse').fieldsArray.map((f) => f.name)).toEqual(['pod_sandbox_id']);
  });

  it.each(cases)('%s: the same bytes as proto-loader\'s codec, and the same object back', (_name, subject, service, method, side) => {
    const { ours: codec, theirs: reference, type } = codecsOf(subject, service, method, side);
    fc.assert(fc.property(messageOf(type, DEPTH), (value) => {
      const bytes = codec.serialize(value);
      expect(Buffer.isBuffer(bytes)).toBe(true);
      expect(bytes.equals(reference.serialize(value))).toBe(true);
      expect(codec.deserialize(bytes)).toStrictEqual(reference.deserialize(bytes));
    }), { numRuns: 25 });
  });

  it('decode an empty message with every default filled in, as proto-loader does', () => {
    for (const [, subject, service, method, side] of cases) {
      const { ours: codec, theirs: reference } = codecsOf(subject, service, method, side);
      expect(codec.deserialize(Buffer.alloc(0))).toStrictEqual(reference.deserialize(Buffer.alloc(0)));
    }
  });

  it('keep int64 values beyond 2^53 exact', () => {
    const { ours: codec } = codecsOf(SUBJECTS[0]!, 'runtime.v1.RuntimeService', 'StopContainer', 'request');
    const back = codec.deserialize(codec.serialize({ container_id: 'c', timeout: '9223372036854775807' }));
    expect(back).toEqual({ container_id: 'c', timeout: '9223372036854775807' });
  });

  it('decode an enum value newer than the proto as its number, as proto-loader does', () => {
    const { ours: codec, theirs: reference } = codecsOf(SUBJECTS[1]!, 'grpc.health.v1.Health', 'Check', 'response');
    const bytes = Buffer.from([0x08, 0x07]); // status = 7
    expect(codec.deserialize(bytes)).toEqual({ status: 7 });
    expect(codec.deserialize(bytes)).toStrictEqual(reference.deserialize(bytes));
  });
});
