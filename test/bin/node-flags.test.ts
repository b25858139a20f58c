import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KUBELET_COMPILER_FLAGS, KUBELET_NODE_FLAGS } from '../../src/bin/node-flags.js';
import { COMMAND_BOUND_MS, KUBELET_BIN } from '../support/kubelet-bin.js';

describe('the V8 options kubelet-ts runs under', () => {
  it('are on the executable\'s #! line and in npm start, exactly as node-flags.ts lists them', () => {
    const shebang = readFileSync('src/bin/kubelet.ts', 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${KUBELET_NODE_FLAGS.join(' ')}`);
    // The bundle (package.json's bin) keeps the entry's #! line.
    expect(readFileSync(KUBELET_BIN, 'utf8').split('\n')[0]).toBe(shebang);
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toContain(`node ${KUBELET_NODE_FLAGS.join(' ')} dist/bundle/kubelet.js`);
    // The compiler's are set by the executable itself, however node was started.
    expect(readFileSync('src/bin/kubelet.ts', 'utf8')).toContain('for (const flag of KUBELET_COMPILER_FLAGS) setFlagsFromString(flag);');
  });

  it('are options this node accepts, those the daemon sets on itself too (node refuses one it does not know)', () => {
    const out = execFileSync(process.execPath, [...KUBELET_NODE_FLAGS, ...KUBELET_COMPILER_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8', timeout: COMMAND_BOUND_MS });
    expect(out).toBe('ok');
  });

  it('take effect when the daemon sets them on itself: code that stopped running is dropped at the next full collections', () => {
    // A function run at "start-up" only, then enough allocation for V8's own full collections.
    const script = `
      for (const flag of JSON.parse(process.argv[1])) require('node:v8').setFlagsFromString(flag);
      function startUpOnly(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
      for (let i = 0; i < 2000; i++) startUpOnly(100);
      let keep = [];
      for (let round = 0; round < 80; round++) { for (let i = 0; i < 1e5; i++) keep.push({ i }); if (keep.length > 1e6) keep = []; }`;
    // V8 renamed the tracing option (Node 20 has the old name, 22 and 24 the new); its line is the same.
    const trace = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', timeout: COMMAND_BOUND_MS }).includes('--trace-flush-code ')
      ? '--trace-flush-code' : '--trace-flush-bytecode';
    const flushed = (flags: readonly string[]) => execFileSync(process.execPath, [trace, '-e', script, JSON.stringify(flags)], { encoding: 'utf8', timeout: COMMAND_BOUND_MS })
      .split('\n').filter((line) => line.includes('discarding compiled metadata')).length;
    expect(flushed(['--no-opt'])).toBe(0);
    expect(flushed(KUBELET_COMPILER_FLAGS)).toBeGreaterThan(0);
  }, 30_000);

  it('leave the #! line short enough for kernels that read 127 characters of it', () => {
    expect(readFileSync('src/bin/kubelet.ts', 'utf8').split('\n')[0]!.length).toBeLessThanOrEqual(127);
  });
});
