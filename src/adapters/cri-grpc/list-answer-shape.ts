/**
 * What list-entries.ts needs to know of a list answer, read from the proto's reflection rather than
 * written down twice: the answer's one field (a list of messages, numbered 1) and the numbers of
 * its messages' map fields.
 */
import protobuf from 'protobufjs/light.js';

export interface ListAnswerShape {
  /** The answer's one field (`items`, `containers`). */
  readonly field: string;
  /** The entries' map fields (labels, annotations), whose pairs a runtime may send in any order. */
  readonly entryMapFields: ReadonlySet<number>;
}

/**
 * The shape of `method`'s answer in `service` (a fully qualified name, `runtime.v1.RuntimeService`).
 * Throws when the answer is not one repeated message field numbered 1: the wire reading would not hold.
 */
export function listAnswerShape(root: protobuf.Root, service: string, method: string): ListAnswerShape {
  const rpc = root.lookupService(service).methods[method];
  const answer = rpc?.resolve() && rpc.resolvedResponseType;
  if (!answer) throw new Error(`${service}.${method}'s answer is not a message of the proto`);
  const [list, ...others] = answer.fieldsArray;
  list?.resolve();
  if (!list || others.length > 0 || list.id !== 1 || !list.repeated || !(list.resolvedType instanceof protobuf.Type)) {
    throw new Error(`${answer.fullName.slice(1)} is not one repeated message field numbered 1`);
  }
  const entryMapFields = new Set(list.resolvedType.fieldsArray.filter((field) => field.map).map((field) => field.id));
  return { field: list.name, entryMapFields };
}
