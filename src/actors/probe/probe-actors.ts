/**
 * The probe worker's one effect: run a probe attempt with the prober for its handler (Go:
 * prober.runProbeWithRetries over runProbe). An attempt that could not run at all (`unknown`) is
 * tried again, three attempts in all, as Go does; failures are verdicts and are not retried.
 * Never rejects for a probe-level problem: the outcome is data the worker counts. Each attempt that
 * does not succeed is a Warning event on the container, as Go's prober records it: Unhealthy
 * ("Liveness probe failed: <output>", "… probe errored: …"), or ProbeWarning for a warning.
 */
import { fromPromise } from 'xstate';
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';
import type { Probers } from '../../ports/probers.js';
import type { RunProbeInput } from '../../machines/probe.machine.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { EventRecorder } from '../../ports/event-recorder.js';
import { probeEvent } from '../../domain/probe/probe-events.js';

/** Go: maxProbeRetries. */
export const PROBE_ATTEMPTS = 3;

/**
 * Every outcome crosses into the worker and so into the journal, once per period per probe: keep it
 * small. A plain success carries no output (Go uses it for nothing but verbose logs); other outputs
 * are cut to 1 KiB, enough for the Unhealthy event's message.
 */
export const MAX_OUTCOME_OUTPUT_CHARS = 1024;

export interface ProbeActorDeps {
  /** One prober per handler kind (src/adapters/probers: createProbers({ execSync })). */
  probers: Probers;
  logger?: Logger;
  /** Stamps each outcome's observedAtMs; without it (tests of the probers alone) outcomes carry no time. */
  clock?: Clock;
  /** The kubelet's event recorder, read per attempt; without it, no events. */
  events?: () => EventRecorder | undefined;
}

export function createProbeActors(deps: ProbeActorDeps) {
  return {
    runProbe: fromPromise<ProbeOutcome, RunProbeInput>(async ({ input }) => {
      const full = await runWithRetries(deps.probers, input.target);
      const event = input.containerRef ? probeEvent(input.containerRef, input.probe, full) : undefined;
      if (event) deps.events?.()?.recordEvent(event);
      const outcome = forJournal(full);
      if (deps.clock) outcome.observedAtMs = deps.clock.now();
      if (outcome.result !== 'success' && deps.logger?.isLevelEnabled('debug')) {
        deps.logger.debug({ probeType: input.probe, handler: input.target.kind, result: outcome.result, output: outcome.output }, 'Probe did not succeed');
      }
      return outcome;
    }),
  };
}

export function forJournal(outcome: ProbeOutcome): ProbeOutcome {
  if (outcome.result === 'success' && !outcome.warning) return { result: 'success', ...(outcome.observedAtMs !== undefined ? { observedAtMs: outcome.observedAtMs } : {}) };
  if (outcome.output === undefined || outcome.output.length <= MAX_OUTCOME_OUTPUT_CHARS) return outcome;
  return { ...outcome, output: outcome.output.slice(0, MAX_OUTCOME_OUTPUT_CHARS) };
}

/** Runs the attempt, again while it could not run, up to PROBE_ATTEMPTS times. */
export async function runWithRetries(probers: Probers, target: ProbeTarget): Promise<ProbeOutcome> {
  // Nothing to retry: the handler itself cannot be resolved and will not resolve on a second try.
  if (target.kind === 'unresolvable') return { result: 'unknown', output: target.reason };
  let outcome: ProbeOutcome = { result: 'unknown' };
  for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
    outcome = await runOnce(probers, target);
    if (outcome.result !== 'unknown') return outcome;
  }
  return outcome;
}

async function runOnce(probers: Probers, target: Exclude<ProbeTarget, { kind: 'unresolvable' }>): Promise<ProbeOutcome> {
  try {
    switch (target.kind) {
      case 'exec':
        return await probers.exec(target);
      case 'httpGet':
        return await probers.httpGet(target);
      case 'tcpSocket':
        return await probers.tcpSocket(target);
      case 'grpc':
        return await probers.grpc(target);
    }
  } catch (err) {
    // A prober that throws has a bug or met something unexpected; Go treats any runProbe error alike.
    return { result: 'unknown', output: err instanceof Error ? err.message : String(err) };
  }
}
