/**
 * The exec prober (Go: pkg/probe/exec over the runtime's ExecSync): the command runs in the
 * container with the probe's timeout.
 * - exit code 0: success; any other exit code: failure. The output is stdout then stderr, at most
 *   10 KiB, as Go's RunInContainer gives it.
 * - The runtime's deadline (DEADLINE_EXCEEDED → KLT_ERR_CRI_DEADLINE): failure, `command "…" timed
 *   out` (Go ≥ 1.20, ExecProbeTimeout locked on).
 * - Any other error (container gone, runtime unavailable): `unknown`, discarded by the worker as Go
 *   discards prober errors.
 */
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';

type ExecTarget = Extract<ProbeTarget, { kind: 'exec' }>;

/** The runtime manager's execSync (RuntimeManager.execSync has this shape). */
export type ExecSyncFn = (
  containerId: string,
  cmd: string[],
  timeoutSeconds: number,
) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

const MAX_OUTPUT_CHARS = 10 * 1024;

export async function execProbe(execSync: ExecSyncFn, target: ExecTarget): Promise<ProbeOutcome> {
  let response: Awaited<ReturnType<ExecSyncFn>>;
  try {
    response = await execSync(target.containerId, target.command, target.timeoutSeconds);
  } catch (err) {
    if (errorCode(err) === 'KLT_ERR_CRI_DEADLINE') {
      return { result: 'failure', output: `command ${JSON.stringify(target.command.join(' '))} timed out` };
    }
    return { result: 'unknown', output: err instanceof Error ? err.message : String(err) };
  }
  const output = (response.stdout + response.stderr).slice(0, MAX_OUTPUT_CHARS);
  return { result: response.exitCode === 0 ? 'success' : 'failure', output };
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'code' in err ? (err as { code: unknown }).code : undefined;
}
