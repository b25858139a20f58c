/**
 * A fixed number of slots shared by every caller, handed out first come first served: a call waits
 * for a slot, holds it while it runs and hands it to the longest waiter when it ends. The kubelet
 * gives pod-driven file work (volume content) one set of slots for the whole node, so however many
 * pods write at once their files open at most that many descriptors, and a call of the kubelet's
 * own waits in the thread pool behind at most that many of theirs.
 */
export interface CallSlots {
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Slots held now. */
  readonly busy: number;
  /** Calls waiting for a slot now. */
  readonly waiting: number;
}

export function callSlots(size: number): CallSlots {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`callSlots: size must be a positive integer, not ${size}`);
  let busy = 0;
  const waiters: (() => void)[] = [];
  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else busy--;
  };
  return {
    async run(call) {
      if (busy < size) busy++;
      else await new Promise<void>((resolve) => waiters.push(resolve));
      try {
        return await call();
      } finally {
        release();
      }
    },
    get busy() {
      return busy;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
