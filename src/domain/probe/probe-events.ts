/**
 * The event Go's prober records for an attempt (pkg/kubelet/prober/prober.go probe): a failure is
 * "<Type> probe failed: <output>", an attempt that could not run "<Type> probe errored: <error>",
 * both Unhealthy Warnings; a success with a warning (a redirect not followed) is ProbeWarning. A
 * plain success records nothing. Pure.
 */
import type { EventRequest, ObjectReference } from '../status-manager/event-aggregation.js';
import { EventReason } from '../status-manager/event-reasons.js';
import type { ProbeOutcome, ProbeType } from './types.js';

/** Go's probeType String(): "Liveness", "Readiness", "Startup". */
function probeTypeName(probe: ProbeType): string {
  return probe.charAt(0).toUpperCase() + probe.slice(1);
}

export function probeEvent(container: ObjectReference, probe: ProbeType, outcome: ProbeOutcome): EventRequest | undefined {
  const name = probeTypeName(probe);
  const output = outcome.output ?? '';
  switch (outcome.result) {
    case 'failure':
      return { object: container, type: 'Warning', reason: EventReason.ContainerUnhealthy, message: `${name} probe failed: ${output}` };
    case 'unknown':
      return { object: container, type: 'Warning', reason: EventReason.ContainerUnhealthy, message: `${name} probe errored: ${output}` };
    case 'success':
      return outcome.warning ? { object: container, type: 'Warning', reason: EventReason.ContainerProbeWarning, message: `${name} probe warning: ${output}` } : undefined;
  }
}
