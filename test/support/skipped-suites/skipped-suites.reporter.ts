import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { NOT_BUILT_MARK } from '../real-parts.js';

/**
 * A gated suite whose upstream binaries are not built on the machine is skipped in CI too
 * (real-parts.ts); vitest's summary counts skipped tests, not why. This reporter says, after the
 * summary, how many suites were skipped for want of those binaries and which, so a run on a new
 * machine never looks as if it had judged the kubelet against the lab.
 */
export default class SkippedSuitesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = notBuiltSuites(modules);
    process.stdout.write(`\n${summarize(lines)}\n`);
  }
}

export interface SkippedSuite {
  readonly file: string;
  readonly reason: string;
}

/** The suites skipped for want of upstream binaries: each one's file and the reason its title gives. */
export function notBuiltSuites(modules: ReadonlyArray<TestModule>, root = process.cwd()): SkippedSuite[] {
  const found: SkippedSuite[] = [];
  for (const module of modules) {
    for (const suite of module.children.allSuites()) {
      const at = suite.name.indexOf(`${NOT_BUILT_MARK}: `);
      if (at < 0) continue;
      found.push({ file: relative(root, module.moduleId), reason: suite.name.slice(at + NOT_BUILT_MARK.length + 2).replace(/\)$/, '') });
    }
  }
  return found;
}

/** What the run's end says: the count, then the reasons with the files each one skipped. */
export function summarize(skipped: readonly SkippedSuite[]): string {
  if (skipped.length === 0) return 'skipped for want of upstream binaries: 0 suites';
  const byReason = new Map<string, string[]>();
  for (const { file, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), file]);
  const files = new Set(skipped.map((s) => s.file));
  return [
    `skipped for want of upstream binaries: ${skipped.length} suites in ${files.size} files`,
    ...[...byReason].map(([reason, of]) => `  ${reason}: ${[...new Set(of)].join(', ')}`),
  ].join('\n');
}
