/**
 * @kubernetes/client-node 2.0.1 loads undici 8, which needs two Node 22 functions at import time
 * (zlib.createZstdDecompress, worker_threads.markAsUncloneable) and one on every request
 * (Promise.withResolvers, Node 22). On Node 20 (our engine) we define
 * stand-ins before client-node is loaded: zstd bodies are then refused (API servers never send one
 * unasked) and undici's objects stay cloneable (nothing clones them). Import via ./client-node.js.
 * On Node 22 and 24 every check below finds the real function and defines nothing. Node 20 reached
 * its end of life in April 2026: this file goes when package.json's engines drops 20.
 */
import workerThreads from 'node:worker_threads';
import zlib from 'node:zlib';

const patchable = (m: object) => m as Record<string, unknown>;

if (typeof patchable(zlib).createZstdDecompress !== 'function') {
  patchable(zlib).createZstdDecompress = () => {
    throw new Error('zstd-encoded responses need Node >= 22.15');
  };
}
if (typeof patchable(workerThreads).markAsUncloneable !== 'function') {
  patchable(workerThreads).markAsUncloneable = () => undefined;
}
if (typeof patchable(Promise).withResolvers !== 'function') {
  // The ES2024 shape: a pending promise together with the functions that settle it.
  patchable(Promise).withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
