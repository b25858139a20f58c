/**
 * Probes: each verdict of a pod's probe workers that changed (`probe.result.changed`, sent by
 * `probe:<uid>:<container>:<type>` only on a change): which probe, which container, the result and
 * the probe's output where the run journaled one, and what the verdict means for the pod — ready or
 * not, started. A liveness or startup failure's kill is the kills family's. Verdicts a worker resets
 * for a new container are told for readiness only: that one turns the pod not ready; liveness and
 * startup resets change nothing the pod shows.
 */
import { isPlainObject } from '../../config/decode.js';
import type { JournalRecord } from '../../journal/record.js';
import type { FamilyExplainer, StoryLine } from '../story.js';

interface ResultChange { container: string; probe: string; result: string; output?: string }

/** Probe output as one line: Go keeps up to 10 KiB of it; a story line keeps the start. */
const OUTPUT_CHARS = 200;

export const probesFamily: FamilyExplainer = (history) => {
  const prefix = `probe:${history.pod.uid}:`;
  const lines: StoryLine[] = [];
  /** Per probe worker, the record that last moved it: a run's answer, a restart, an exit. */
  const lastCause = new Map<string, JournalRecord>();
  for (const record of history.records) {
    if (!record.actor.startsWith(prefix) || record.actor.includes('/')) continue;
    if (record.type === 'event' && (record.name === 'xstate.done.actor.runProbe' || record.name === 'probe.container.restarted' || record.name === 'probe.container.exited')) {
      lastCause.set(record.actor, record);
      continue;
    }
    const change = resultChange(record);
    if (!change) continue;
    const cause = lastCause.get(record.actor);
    lastCause.delete(record.actor);
    const text = describe(change, cause?.name);
    if (text === null) continue;
    const cites = cause ? [cause.seq, record.seq] : [record.seq];
    lines.push({ t: cause?.t ?? record.t, family: 'probes', text, cites });
  }
  return lines;
};

function resultChange(record: JournalRecord): ResultChange | undefined {
  if (record.type !== 'action' || record.name !== 'send' || !isPlainObject(record.payload)) return undefined;
  const event = record.payload.event;
  if (!isPlainObject(event) || event.type !== 'probe.result.changed') return undefined;
  const { container, probe, result, output } = event;
  if (typeof container !== 'string' || typeof probe !== 'string' || typeof result !== 'string') return undefined;
  return { container, probe, result, ...(typeof output === 'string' ? { output } : {}) };
}

function describe(change: ResultChange, cause: string | undefined): string | null {
  const { container, probe, result } = change;
  if (cause === 'probe.container.restarted') return probe === 'readiness' ? `readiness of container ${container} starts again as ${result} for its new container: not ready` : null;
  if (cause === 'probe.container.exited') return `${probe} of container ${container} is ${result}: its container exited${probe === 'readiness' ? ': not ready' : ''}`;
  const meaning = MEANINGS[`${probe}:${result}`];
  const output = change.output !== undefined ? oneLine(change.output) : '';
  const verb = result === 'success' ? 'succeeded' : result === 'failure' ? 'failed' : `is ${result}`;
  return `${probe} probe of container ${container} ${verb}${meaning ? `: ${meaning}` : ''}${output ? ` (${output})` : ''}`;
}

/** What a verdict does to the pod, as Go's status and prober read it. */
const MEANINGS: Record<string, string> = {
  'readiness:success': 'ready',
  'readiness:failure': 'not ready',
  'startup:success': 'started',
  'startup:failure': 'not started',
};

function oneLine(output: string): string {
  const flat = output.replace(/\s+/g, ' ').trim();
  return flat.length > OUTPUT_CHARS ? `${flat.slice(0, OUTPUT_CHARS)}…` : flat;
}
