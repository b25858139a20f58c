import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import StallWatchReporter, { STALL_LIMIT_MS } from './stall-watch.reporter.js';
import { workerPidFile } from './worker-pids.js';

const FIXTURE_CONFIG = 'test/support/stall-watch/fixture/vitest.config.ts';

/** A vitest run of the fixture: its own process, without this worker's VITEST_* variables. */
async function runFixture(): Promise<{ code: number | null; out: string; err: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', FIXTURE_CONFIG], {
    env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out, err };
}

describe('the stall watch (a reporter of the suite)', () => {
  it('names a file whose worker stopped reporting, ends that worker alone, and lets the run finish failed', async () => {
    // The blocked file would hold its worker for ten minutes; this test's own timeout is two.
    const { code, out, err } = await runFixture();
    expect(err).toMatch(
      /stall-watch: blocked\.fixture\.ts has reported nothing for \d+ s \(last heard: [^)]+\); its first unfinished test is "waits on something that never comes, with its thread blocked"; ending its worker \(pid \d+\)/,
    );
    expect(err).not.toContain('stall-watch: passing.fixture.ts');
    // Said again when the run ends, after vitest's summary, which names no file for the worker.
    expect(err).toMatch(/stall-watch: this run ended a worker: blocked\.fixture\.ts has reported nothing for/);
    expect(out).toMatch(/Tests\s+12 passed/);
    expect(code).toBe(1);
  }, 120_000);

  it('ends the workers still alive when every file begun has ended and the run has not', async () => {
    // A child of this process in a worker's place: one that never told the pool it finished.
    const worker = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1_000)'], { stdio: 'ignore' });
    const exited = once(worker, 'exit');
    const file = workerPidFile(process.pid, '/suite/a.test.ts');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, String(worker.pid));
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((line) => said.push(String(line)) > 0);
    const reporter = new StallWatchReporter({ limitMs: 200, checkEveryMs: 50 });
    try {
      // cast: the reporter reads only these of a module that has ended
      const module = { moduleId: '/suite/a.test.ts', relativeModuleId: 'a.test.ts' } as unknown as TestModule;
      reporter.onTestRunStart();
      reporter.onTestModuleQueued(module);
      reporter.onTestModuleEnd(module);
      expect((await exited)[1]).toBe('SIGKILL');
      expect(said.join('')).toMatch(new RegExp(`every file begun has ended, yet the run has not for \\d+ s; ending the workers still alive \\(pids ${worker.pid}\\)`));
    } finally {
      reporter.onTestRunEnd();
      write.mockRestore();
      worker.kill('SIGKILL');
    }
  });

  it('waits longer than any test or hook of the suite may run by its own timeout', () => {
    // A timeout written as the last argument of it/test/beforeAll/…: `}, 600_000)`.
    const timeouts = readdirSync('test', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).flatMap((file) => [...readFileSync(join('test', file), 'utf8').matchAll(/\}, ([\d_]+)\);?$/gm)].map((m) => Number(m[1]!.replaceAll('_', ''))));
    expect(timeouts.length).toBeGreaterThan(100);
    expect(Math.max(...timeouts)).toBeLessThan(STALL_LIMIT_MS);
  });
});

