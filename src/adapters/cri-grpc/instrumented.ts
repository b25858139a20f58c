/**
 * Counts every CRI call and its failures by operation (kubelet_runtime_operations_total and
 * _errors_total), wrapping a client without changing what it does.
 */
import type { CriClient } from '../../ports/cri.js';

export interface OperationCounts {
  calls: Map<string, { count: number; errors: number }>;
}

function counted<T extends object>(target: T, counts: OperationCounts): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        const entry = counts.calls.get(prop) ?? { count: 0, errors: 0 };
        counts.calls.set(prop, entry);
        entry.count += 1;
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        if (result instanceof Promise) return result.catch((err: unknown) => { entry.errors += 1; throw err; });
        return result;
      };
    },
  });
}

export function instrumentCri(client: CriClient, counts: OperationCounts): CriClient {
  return { runtime: counted(client.runtime, counts), images: counted(client.images, counts), close: () => client.close() };
}
