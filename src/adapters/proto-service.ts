/**
 * A service of a loaded proto, as the definition type proto-loader-gen-types generated for it.
 * Types cannot follow a file read at run time, so this is where the two meet: the loaded definition
 * is checked to be a service (every entry a method with a path), and the generated type, made from
 * the same .proto file with the same loader options, names its methods and message shapes.
 */
import type * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';

function isServiceOf<D extends grpc.ServiceDefinition>(entry: protoLoader.AnyDefinition | undefined, name: string): entry is D & protoLoader.ServiceDefinition {
  if (entry === undefined || 'format' in entry) return false; // absent, or a message or enum type
  const methods = Object.values(entry);
  return methods.length > 0 && methods.every((method) => method.path.startsWith(`/${name}/`));
}

export function serviceDefinition<D extends grpc.ServiceDefinition>(definition: protoLoader.PackageDefinition, name: string): D {
  const entry = definition[name];
  if (!isServiceOf<D>(entry, name)) throw new Error(`${name} is not a service of the loaded proto`);
  return entry;
}
