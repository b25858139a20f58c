/** Runs a kubectl binary against a kubeconfig: its exit code and both outputs, stdin fed when given. */
import { spawn } from 'node:child_process';

export interface KubectlRun { code: number | null; stdout: string; stderr: string }

export function runKubectl(bin: string, kubeconfig: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<KubectlRun> {
  return new Promise((done) => {
    const child = spawn(bin, [`--kubeconfig=${kubeconfig}`, ...args], { stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    // stdout and stderr are piped (the stdio above), so the child has both streams.
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // A deadline, not a wait: kubectl normally exits first and clears it; this only ends a hung one.
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}
