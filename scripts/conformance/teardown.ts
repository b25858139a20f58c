/**
 * What the run brought up, in order, so it can be taken down in reverse whatever happened: each step
 * is tried once, a failing step is reported and the next one still runs.
 */
export class Teardown {
  private readonly steps: { what: string; run: () => Promise<void> | void }[] = [];

  constructor(private readonly log: (line: string) => void) {}

  /** Registers how to undo what was just brought up. */
  add(what: string, run: () => Promise<void> | void): void {
    this.steps.push({ what, run });
  }

  /** Runs every step, newest first; true when all succeeded. */
  async run(): Promise<boolean> {
    let ok = true;
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      this.log(`teardown: ${step.what}`);
      try {
        await step.run();
      } catch (err) {
        ok = false;
        this.log(`teardown: ${step.what} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return ok;
  }
}
