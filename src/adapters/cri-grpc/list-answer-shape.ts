/**
 * What list-entries.ts needs to know of a list answer, read from the loaded proto's descriptors rather
 * than written down twice: the answer's one field (a list of messages, numbered 1) and the numbers of
 * its messages' map fields.
 */
import type * as protoLoader from '@grpc/proto-loader';

export interface ListAnswerShape {
  /** The answer's one field (`items`, `containers`). */
  readonly field: string;
  /** The entries' map fields (labels, annotations), whose pairs a runtime may send in any order. */
  readonly entryMapFields: ReadonlySet<number>;
}

/** The parts of a DescriptorProto (as proto-loader hands it out) read here. */
interface MessageDescriptor {
  name: string;
  field: { name: string; number: number; label: string; type: string; typeName: string }[];
  nestedType: { name: string; options?: { mapEntry?: boolean } | null }[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function isMessageDescriptor(value: unknown): value is MessageDescriptor {
  return isRecord(value) && typeof value.name === 'string' && Array.isArray(value.field) && Array.isArray(value.nestedType)
    && value.field.every((f) => isRecord(f) && typeof f.name === 'string' && typeof f.number === 'number'
      && typeof f.label === 'string' && typeof f.type === 'string' && typeof f.typeName === 'string')
    && value.nestedType.every((n) => isRecord(n) && typeof n.name === 'string');
}

function descriptorOf(type: unknown, what: string): MessageDescriptor {
  if (!isMessageDescriptor(type)) throw new Error(`${what} is not a message of the loaded proto`);
  return type;
}

/**
 * The shape of `method`'s answer in `service` (a fully qualified name, `runtime.v1.RuntimeService`).
 * Throws when the answer is not one repeated message field numbered 1: the wire reading would not hold.
 */
export function listAnswerShape(definition: protoLoader.PackageDefinition, service: string, method: string): ListAnswerShape {
  const pkg = service.slice(0, service.lastIndexOf('.'));
  const methods = definition[service];
  const answerType = isRecord(methods) && isRecord(methods[method]) ? methods[method].responseType : undefined;
  const answer = descriptorOf(isRecord(answerType) ? answerType.type : undefined, `${service}.${method}'s answer`);
  const [list, ...others] = answer.field;
  if (!list || others.length > 0 || list.number !== 1 || list.label !== 'LABEL_REPEATED' || list.type !== 'TYPE_MESSAGE') {
    throw new Error(`${pkg}.${answer.name} is not one repeated message field numbered 1`);
  }
  const entryType = definition[`${pkg}.${list.typeName}`];
  const entry = descriptorOf(isRecord(entryType) ? entryType.type : undefined, `${pkg}.${list.typeName}`);
  const mapEntries = new Set(entry.nestedType.filter((n) => n.options?.mapEntry === true).map((n) => n.name));
  const entryMapFields = new Set(entry.field.filter((f) => f.type === 'TYPE_MESSAGE' && mapEntries.has(f.typeName)).map((f) => f.number));
  return { field: list.name, entryMapFields };
}
