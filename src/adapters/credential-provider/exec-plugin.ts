/**
 * Runs one credential provider plugin as Go's execPlugin does: `<bin-dir>/<name> args...` with the
 * kubelet's environment plus the provider's `env` (later wins), the request on stdin, stdout read as
 * the response, at most one minute. A failure's message carries the plugin's stderr, never its stdout.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CredentialProvider } from '../../domain/credentials/provider-config.js';

export const PLUGIN_TIMEOUT_MS = 60_000;
/** A response larger than this is refused: it is a few credentials. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export function execPlugin(binDir: string, provider: CredentialProvider, image: string, stdin: string, timeoutMs = PLUGIN_TIMEOUT_MS): Promise<string> {
  const env = { ...process.env, ...Object.fromEntries(provider.env.map((e) => [e.name, e.value])) };
  const failed = (why: string, stderr: string) => new Error(`error execing credential provider plugin ${provider.name} for image ${image}: ${why}: ${stderr}`);
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, provider.name), provider.args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.reduce((n, x) => n + x.length, 0) < 64 * 1024) err.push(b);
    });
    child.stdin.on('error', () => { /* a plugin that never reads its stdin: the exit status tells */ });
    child.on('error', (e) => reject(failed(e.message, '')));
    child.on('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (size > MAX_OUTPUT_BYTES) reject(failed(`its output exceeded ${MAX_OUTPUT_BYTES} bytes`, stderr));
      else if (signal) reject(failed(signal === 'SIGKILL' ? 'context deadline exceeded' : `signal: ${signal}`, stderr));
      else if (code !== 0) reject(failed(`exit status ${code}`, stderr));
      else resolve(Buffer.concat(out).toString('utf8'));
    });
    child.stdin.end(stdin);
  });
}
