/**
 * @kubernetes/client-node 2.0.1 depends on undici 8, which requires Node >= 22.19 and fails to load
 * on Node 20 (the project's engine): at import it calls zlib.createZstdDecompress (Node 22.15) and
 * worker_threads.markAsUncloneable (Node 22.10), and every request uses Promise.withResolvers
 * (Node 22). This fills in the three before client-node is loaded: zstd responses are then
 * unsupported (API servers never send them unasked) and undici's web objects stay cloneable
 * (nothing here clones them). Import this module before client-node.
 */
import workerThreads from 'node:worker_threads';
import zlib from 'node:zlib';

type Mutable = Record<string, unknown>;

if (typeof (zlib as unknown as Mutable).createZstdDecompress !== 'function') {
  (zlib as unknown as Mutable).createZstdDecompress = () => {
    throw new Error('zstd decompression needs Node >= 22.15');
  };
}
if (typeof (workerThreads as unknown as Mutable).markAsUncloneable !== 'function') {
  (workerThreads as unknown as Mutable).markAsUncloneable = () => undefined;
}

if (typeof (Promise as unknown as Mutable).withResolvers !== 'function') {
  (Promise as unknown as Mutable).withResolvers = function withResolvers<T>() {
    let resolve!: (v: T | PromiseLike<T>) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
