import { describe, expect, it } from 'vitest';
import { execProbe, type ExecSyncFn } from '../../../src/adapters/probers/exec-prober.js';
import { KubeletError } from '../../../src/domain/errors.js';

const target = { kind: 'exec' as const, containerId: 'c1', command: ['cat', '/tmp/healthy'], timeoutSeconds: 2 };

/** A fake execSync that records its calls and answers with `answer`. */
function fakeExec(answer: () => Promise<Awaited<ReturnType<ExecSyncFn>>>) {
  const calls: unknown[][] = [];
  const execSync: ExecSyncFn = async (...args) => {
    calls.push(args);
    return answer();
  };
  return { calls, execSync };
}

describe('execProbe', () => {
  it('runs the command in the container with the probe timeout and succeeds on exit 0', async () => {
    const { calls, execSync } = fakeExec(async () => ({ stdout: 'ok\n', stderr: '', exitCode: 0 }));
    expect(await execProbe(execSync, target)).toEqual({ result: 'success', output: 'ok\n' });
    expect(calls).toEqual([['c1', ['cat', '/tmp/healthy'], 2]]);
  });

  it('fails on a non-zero exit, with stdout then stderr as output', async () => {
    const { execSync } = fakeExec(async () => ({ stdout: 'out ', stderr: 'no such file', exitCode: 1 }));
    expect(await execProbe(execSync, target)).toEqual({ result: 'failure', output: 'out no such file' });
  });

  it('fails when the command times out', async () => {
    const { execSync } = fakeExec(async () => {
      throw new KubeletError('KLT_ERR_CRI_DEADLINE', 'deadline exceeded');
    });
    expect(await execProbe(execSync, target)).toEqual({ result: 'failure', output: 'command "cat /tmp/healthy" timed out' });
  });

  it('answers unknown when the runtime could not run the command', async () => {
    const { execSync } = fakeExec(async () => {
      throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'container c1 not found');
    });
    expect(await execProbe(execSync, target)).toEqual({ result: 'unknown', output: 'container c1 not found' });
  });

  it('keeps at most 10 KiB of output', async () => {
    const { execSync } = fakeExec(async () => ({ stdout: 'a'.repeat(20_000), stderr: 'b', exitCode: 0 }));
    expect((await execProbe(execSync, target)).output).toHaveLength(10 * 1024);
  });
});
