/**
 * Text that arrives in pieces (a child's stderr, a captured writer), with waits for a piece of it that
 * resolve on the chunk that completes it: no polling.
 */
export class TextFeed {
  private text = '';
  private readonly waiters = new Set<{ needle: string; resolve: () => void }>();

  get value(): string {
    return this.text;
  }

  push(chunk: string): void {
    this.text += chunk;
    for (const w of this.waiters) {
      if (!this.text.includes(w.needle)) continue;
      this.waiters.delete(w);
      w.resolve();
    }
  }

  /**
   * Resolves once the text contains `needle`. Rejects, naming `what` and quoting the text so far, if
   * `ended` (the writer's end: a child's exit, a command's result) settles first, or after `timeoutMs`.
   */
  waitFor(needle: string, what: string, opts: { ended?: Promise<unknown>; timeoutMs?: number } = {}): Promise<void> {
    if (this.text.includes(needle)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const fail = (why: string) => {
        if (!this.waiters.delete(waiter)) return;
        clearTimeout(timer);
        reject(new Error(`${why} waiting for ${what}; the text so far:\n${this.text}`));
      };
      const waiter = { needle, resolve: () => { clearTimeout(timer); resolve(); } };
      this.waiters.add(waiter);
      // A deadline, not a wait: the text normally arrives first and clears it.
      if (opts.timeoutMs !== undefined) timer = setTimeout(() => fail(`timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
      opts.ended?.then(() => fail('ended'), () => fail('ended'));
    });
  }
}
