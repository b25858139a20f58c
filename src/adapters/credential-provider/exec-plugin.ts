/**
 * Runs one credential provider plugin as Go's execPlugin does: `<bin-dir>/<name> args...` with the
 * kubelet's environment plus the provider's `env` (later wins), the request on stdin, stdout read as
 * the response, at most one minute.
 *
 * Stricter than Go in two ways. The plugin runs in a process group of its own, and that whole group
 * is killed when the plugin exits or its minute is up: a child it left behind holding stdout would
 * otherwise keep the answer (and that image's pull) waiting for ever. And a failure says how many
 * bytes the plugin wrote to stderr, never what: a plugin's stderr can hold the token it fetched.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { CredentialProvider } from '../../domain/credentials/provider-config.js';

/** Go's execPlugin: "a catch-all timeout of 1 minute for all exec-based plugins". */
export const PLUGIN_TIMEOUT_MS = 60_000;
/** A response larger than this is refused: it is a few credentials. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export function execPlugin(binDir: string, provider: CredentialProvider, image: string, stdin: string, timeoutMs = PLUGIN_TIMEOUT_MS): Promise<string> {
  const env = { ...process.env, ...Object.fromEntries(provider.env.map((e) => [e.name, e.value])) };
  let stderrBytes = 0;
  const failed = (why: string) =>
    new Error(`error execing credential provider plugin ${provider.name} for image ${image}: ${why}; the plugin wrote ${stderrBytes} bytes to stderr (not shown: it may hold a credential)`);
  return new Promise((resolve, reject) => {
    const child = spawn(join(binDir, provider.name), provider.args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is gone already.
      }
    };
    const deadline = setTimeout(() => {
      killGroup();
      // A member outside the group (one that called setsid) may still hold the pipes: stop reading them.
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
      settle(() => reject(failed(`context deadline exceeded (no answer within ${timeoutMs} ms; its process group was killed)`)));
    }, timeoutMs);

    const out: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT_BYTES) killGroup();
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      stderrBytes += b.length;
    });
    child.stdin.on('error', () => { /* a plugin that never reads its stdin: the exit status tells */ });
    child.on('error', (e) => settle(() => reject(failed(e.message))));
    // What the plugin left running in its group dies with it, so the pipes close and 'close' follows.
    child.on('exit', killGroup);
    child.on('close', (code, signal) => {
      settle(() => {
        if (size > MAX_OUTPUT_BYTES) reject(failed(`its output exceeded ${MAX_OUTPUT_BYTES} bytes`));
        else if (signal) reject(failed(`signal: ${signal}`));
        else if (code !== 0) reject(failed(`exit status ${code}`));
        else resolve(Buffer.concat(out).toString('utf8'));
      });
    });
    child.stdin.end(stdin);
  });
}
