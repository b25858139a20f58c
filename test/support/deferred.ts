/** A promise a test resolves or rejects when it chooses: an effect that stays in flight until then. */
export interface Deferred<T> { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void }

export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
