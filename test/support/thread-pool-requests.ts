/** Counting the file system calls that go through libuv's thread pool (async_hooks FSREQ* resources). */
import { createHook } from 'node:async_hooks';

/** How many file system calls went through libuv's thread pool while `run` ran. */
export async function threadPoolRequestsDuring(run: () => Promise<unknown>): Promise<number> {
  let requests = 0;
  const hook = createHook({ init: (_id, type) => void (type.startsWith('FSREQ') && requests++) }).enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return requests;
}
