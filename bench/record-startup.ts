/**
 * One start-up of the real binary, recorded: standalone, an empty manifest directory, stopped
 * (SIGTERM) once its journal shows it Ready, the sync loop's first sync of pods, and running. For the start-up
 * noise bench and the `report --compare` tests. Returns the journal's path.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import { readyMarks } from '../src/domain/journal/startup-ready.js';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

/**
 * The sync loop's first `syncing` state and the supervisor's `running`, as the journal writes them
 * (startup-ready.ts and report.ts read them back): stopped before both, a start-up would show its
 * last phases cut short, or stretched by the wait for the stop.
 */
const SYNCING = '"actor":"syncLoop","kind":"derived","type":"state","name":"syncLoop","source":null,"payload":{"value":"syncing"';
const RUNNING = '"actor":"supervisor","kind":"derived","type":"state","name":"supervisor","source":null,"payload":{"value":"running"';

/** A bound for a loaded 2-core machine, not a figure: a start-up takes a fraction of it. */
const DEADLINE_MS = 60_000;

export function recordStartup(dir: string, endpoint = 'embedded'): Promise<string> {
  const log = join(dir, 'events', 'latest.jsonl');
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [
      BIN, `--container-runtime-endpoint=${endpoint}`, `--root-dir=${dir}`, `--device-plugins-dir=${join(dir, 'device-plugins')}`,
      `--pod-manifest-path=${join(dir, 'manifests')}`, '--debug-address=', '--healthz-port=0', '--enable-server=false', '--fail-swap-on=false',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => {
      const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
      if (text.includes(SYNCING) && text.includes(RUNNING)) {
        clearInterval(poll);
        child.kill('SIGTERM');
      }
    }, 100);
    const deadline = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
    child.on('exit', () => {
      clearInterval(poll);
      clearTimeout(deadline);
      const ready = existsSync(log) ? readyMarks(readJournal(log).records).syncLoopSyncing : undefined;
      if (ready === undefined) fail(new Error(`kubelet never synced pods:\n${stderr.slice(-2000)}`));
      else done(log);
    });
  });
}
