import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, ReportedHookContext, TestCase, TestModule, TestSuite } from 'vitest/node';
import { readProcStat } from '../../../src/adapters/embedded-runtime/shim/proc-stat.js';
import { workerPidDir, workerPidFile } from './worker-pids.js';

/**
 * vitest bounds a test and a hook by their timeouts, but only from inside the worker: a worker whose
 * thread is blocked (a child process waited on synchronously), or a file that never finishes loading,
 * holds the run forever, and the default reporter prints a file only once it ends, so nothing says
 * which. This reporter follows every file a worker has begun, and when one reports nothing (no test,
 * no hook begun or ended) for longer than any timeout it could be inside, it names the file and where
 * it was, and ends that file's worker: vitest then fails the run and goes on to its summary.
 *
 * The same holds when every file has reported its end but the run does not: a worker that never told
 * the pool it finished. Then every worker still alive is ended.
 */
export interface StallWatchOptions {
  /** Longer than the longest timeout a test or hook of the suite sets (a test holds them under it). */
  readonly limitMs?: number;
  readonly checkEveryMs?: number;
}

export const STALL_LIMIT_MS = 12 * 60_000;
const CHECK_EVERY_MS = 30_000;

interface FileProgress {
  // The newest the reports gave: the one queued holds no tests yet.
  module: TestModule;
  lastReportAt: number;
  at: string;
}

export default class StallWatchReporter implements Reporter {
  readonly #files = new Map<string, FileProgress>();
  readonly #limitMs: number;
  readonly #checkEveryMs: number;
  #timer: NodeJS.Timeout | undefined;
  #lastReportAt = 0;
  /** What was said of each worker ended, said again at the run's end, after vitest's summary. */
  readonly #said: string[] = [];

  constructor(options: StallWatchOptions = {}) {
    this.#limitMs = options.limitMs ?? STALL_LIMIT_MS;
    this.#checkEveryMs = options.checkEveryMs ?? CHECK_EVERY_MS;
  }

  onTestRunStart(): void {
    this.#lastReportAt = Date.now();
    this.#timer = setInterval(() => this.#check(), this.#checkEveryMs);
    this.#timer.unref();
  }

  onTestRunEnd(): void {
    clearInterval(this.#timer);
    this.#files.clear();
    rmSync(workerPidDir(process.pid), { recursive: true, force: true });
    // vitest's summary names no file for a worker that exited; a CI log's tail shows these.
    for (const line of this.#said.splice(0)) say(`this run ended a worker: ${line}`);
  }

  onTestModuleQueued(module: TestModule): void {
    this.#lastReportAt = Date.now();
    this.#files.set(module.moduleId, { module, lastReportAt: this.#lastReportAt, at: 'loading the file' });
  }

  onTestModuleCollected(module: TestModule): void {
    this.#progress(module, 'collected, before its first test');
  }

  onTestCaseReady(test: TestCase): void {
    this.#progress(test.module, `in test "${test.fullName}"`);
  }

  onTestCaseResult(test: TestCase): void {
    this.#progress(test.module, `after test "${test.fullName}"`);
  }

  onHookStart(hook: ReportedHookContext): void {
    this.#progress(moduleOf(hook.entity), `in the ${hook.name} hook of ${nameOf(hook.entity)}`);
  }

  onHookEnd(hook: ReportedHookContext): void {
    this.#progress(moduleOf(hook.entity), `after the ${hook.name} hook of ${nameOf(hook.entity)}`);
  }

  onTestModuleEnd(module: TestModule): void {
    this.#lastReportAt = Date.now();
    this.#files.delete(module.moduleId);
  }

  #progress(module: TestModule, at: string): void {
    this.#lastReportAt = Date.now();
    const progress = this.#files.get(module.moduleId);
    if (!progress) return;
    progress.module = module;
    progress.lastReportAt = this.#lastReportAt;
    progress.at = at;
  }

  #check(): void {
    const now = Date.now();
    for (const [moduleId, progress] of this.#files) {
      const quietMs = now - progress.lastReportAt;
      if (quietMs <= this.#limitMs) continue;
      this.#files.delete(moduleId);
      const pid = workerOf(moduleId);
      // A worker sends its reports in batches, so one blocked at a test's start never reported it.
      const [unfinished] = progress.module.children.allTests('pending');
      this.#sayAndKeep(
        `${progress.module.relativeModuleId} has reported nothing for ${seconds(quietMs)} (last heard: ${progress.at})` +
          (unfinished ? `; its first unfinished test is "${unfinished.fullName}"` : '') +
          (pid ? `; ending its worker (pid ${pid}) so the run fails here instead of hanging` : '; its worker is not known, so the run may hang here'),
      );
      if (pid) end(pid);
    }
    const quietMs = now - this.#lastReportAt;
    if (this.#files.size === 0 && quietMs > this.#limitMs) {
      this.#lastReportAt = now;
      const pids = liveWorkers();
      this.#sayAndKeep(`every file begun has ended, yet the run has not for ${seconds(quietMs)}; ending the workers still alive (pids ${pids.join(', ') || 'none'})`);
      pids.forEach(end);
    }
  }

  #sayAndKeep(line: string): void {
    this.#said.push(line);
    say(line);
  }
}

function moduleOf(entity: TestCase | TestSuite | TestModule): TestModule {
  return entity.type === 'module' ? entity : entity.module;
}

function nameOf(entity: TestCase | TestSuite | TestModule): string {
  return entity.type === 'module' ? 'the file' : `"${entity.fullName}"`;
}

function say(line: string): void {
  process.stderr.write(`\nstall-watch: ${line}\n`);
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function workerOf(moduleId: string): number | undefined {
  try {
    return pidIn(workerPidFile(process.pid, moduleId));
  } catch {
    return undefined;
  }
}

/** The workers that ran a file of this run and are alive still (a worker runs file after file). */
function liveWorkers(): number[] {
  let names: string[];
  try {
    names = readdirSync(workerPidDir(process.pid));
  } catch {
    return [];
  }
  const pids = new Set(names.map((name) => pidIn(join(workerPidDir(process.pid), name))));
  return [...pids].filter((pid): pid is number => pid !== undefined && ourChild(pid));
}

function pidIn(file: string): number | undefined {
  const pid = Number(readFileSync(file, 'utf8'));
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A worker is a child of this process: a pid of one that exited may be another process's by now. */
function ourChild(pid: number): boolean {
  return readProcStat(pid)?.ppid === process.pid;
}

function end(pid: number): void {
  if (!ourChild(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already: vitest sees that exit itself.
  }
}
