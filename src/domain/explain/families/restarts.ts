/**
 * Restarts: each container the runtime shows exited (its exit code and reason, from the runtime
 * status a sync read, the first time that container is seen exited), each start of a container
 * that had started before (its restart count), and the CrashLoopBackOff waits between (Go's
 * "back-off 10s restarting failed container=…" message; the syncs that met the same back-off are
 * one line citing them all, with how many times, as the story folds a repeated line). Why a
 * container was killed is the kills family's.
 */
import { isPlainObject } from '../../config/decode.js';
import type { FamilyExplainer, StoryLine } from '../story.js';
import { shortId, workerResults, type WorkerResult } from '../worker-results.js';

interface RuntimeContainer { id: string; name: string; state: string; exitCode?: number; reason?: string; restartCount?: number }

export const restartsFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  const seenExited = new Set<string>();
  const started = new Set<string>();
  /** Per container name, the back-off line still open (extended while the message stays the same). */
  const backOff = new Map<string, { line: StoryLine; message: string }>();
  for (const result of workerResults(history)) {
    const { record } = result;
    const cite = { t: record.t, family: 'restarts' as const, cites: [record.seq] };
    const containers = runtimeContainers(result);
    for (const c of containers) {
      if (c.state !== 'exited' || seenExited.has(c.id)) continue;
      seenExited.add(c.id);
      lines.push({ ...cite, text: `container ${c.name} (${shortId(c.id)}) exited with code ${c.exitCode ?? 'unknown'}${c.reason ? ` (${c.reason})` : ''}` });
    }
    for (const step of result.steps) {
      if (step.step !== 'startContainer' && step.step !== 'startInitContainer') continue;
      if (step.ok) {
        backOff.delete(step.target);
        if (started.has(step.target)) {
          const count = containers.find((c) => c.id === step.id)?.restartCount;
          lines.push({ ...cite, text: `container ${step.target} restarted${count !== undefined ? ` (restart ${count})` : ''}` });
        }
        started.add(step.target);
      } else if (step.reason === 'CrashLoopBackOff') {
        const message = step.error?.message ?? 'back-off';
        const open = backOff.get(step.target);
        if (open?.message === message) {
          open.line.cites = [...open.line.cites, record.seq];
          open.line.repeated = { times: (open.line.repeated?.times ?? 1) + 1, lastT: record.t };
          continue;
        }
        const line: StoryLine = { ...cite, text: `CrashLoopBackOff: ${message}` };
        backOff.set(step.target, { line, message });
        lines.push(line);
      }
    }
  }
  return lines;
};

/** The containers of the runtime status the sync read after its steps, if journaled. */
function runtimeContainers(result: WorkerResult): RuntimeContainer[] {
  const output = isPlainObject(result.record.payload) ? result.record.payload.output : undefined;
  const podStatus = isPlainObject(output) ? output.podStatus : undefined;
  const runtime = isPlainObject(podStatus) ? podStatus.runtimeStatus : undefined;
  const containers = isPlainObject(runtime) && Array.isArray(runtime.containers) ? runtime.containers : [];
  return containers.filter((c): c is RuntimeContainer => isPlainObject(c) && typeof c.id === 'string' && typeof c.name === 'string' && typeof c.state === 'string');
}
