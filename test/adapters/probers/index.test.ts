import { describe, expect, it } from 'vitest';
import { createProbers } from '../../../src/adapters/probers/index.js';

describe('createProbers', () => {
  it('runs exec probes through the given execSync', async () => {
    const calls: unknown[][] = [];
    const probers = createProbers({
      execSync: async (...args) => {
        calls.push(args);
        return { stdout: '', stderr: 'unhealthy', exitCode: 2 };
      },
    });
    expect(await probers.exec({ kind: 'exec', containerId: 'c9', command: ['check'], timeoutSeconds: 3 })).toEqual({
      result: 'failure',
      output: 'unhealthy',
    });
    expect(calls).toEqual([['c9', ['check'], 3]]);
  });
});
