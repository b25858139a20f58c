/**
 * Calls run side by side whose step fails as a whole: every call's answer once all have ended, or
 * the first failure in the calls' order. Unlike Promise.all it never answers while a call still
 * runs, so what follows a failure (a clean-up, a retry) never races a call of the failed step.
 */
export async function allOrFirstError<T extends readonly unknown[] | []>(calls: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled: PromiseSettledResult<unknown>[] = await Promise.allSettled(calls as readonly unknown[]);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
