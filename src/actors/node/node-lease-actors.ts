/**
 * The nodeLeaseMachine's effect (NODE_LEASE_EFFECTS): one renewal through the heartbeat client.
 * Get the lease when there is no fresh copy, create it when missing, update it with the
 * resourceVersion we hold, and on 409 re-get and update once (Go: ensureLease, retryUpdateLease).
 */
import type { Logger } from 'pino';
import { fromPromise } from 'xstate';
import { KubeletError, serializeError } from '../../domain/errors.js';
import { NODE_LEASE_NAMESPACE, newLease, renewedLease, type LeaseParams } from '../../domain/node-status/node-lease.js';
import type { LeaseRenewal, RenewLeaseInput } from '../../machines/node-lease.machine.js';
import type { HeartbeatApi, LeaseObject } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';

export interface NodeLeaseActorDeps {
  heartbeat: HeartbeatApi;
  clock: Clock;
  logger: Logger;
}

const isCode = (err: unknown, code: string) => err instanceof KubeletError && err.code === code;

export function nodeLeaseActors(deps: NodeLeaseActorDeps) {
  const { heartbeat, clock, logger } = deps;
  const params = (input: RenewLeaseInput): LeaseParams => ({
    nodeName: input.nodeName, leaseDurationSeconds: input.leaseDurationSeconds, nodeUid: input.nodeUid, nowMs: clock.now(),
  });

  async function renew(input: RenewLeaseInput): Promise<LeaseObject> {
    let base = input.lease;
    if (base === null) {
      try {
        base = await heartbeat.getLease(NODE_LEASE_NAMESPACE, input.nodeName);
      } catch (err) {
        if (!isCode(err, 'KLT_ERR_API_NOT_FOUND')) throw err;
        return heartbeat.createLease(newLease(params(input)));
      }
    }
    try {
      return await heartbeat.updateLease(renewedLease(base, params(input)));
    } catch (err) {
      // Someone else wrote it (or our copy is stale): read it again and update once.
      if (!isCode(err, 'KLT_ERR_API_CONFLICT') && !isCode(err, 'KLT_ERR_API_NOT_FOUND')) throw err;
      if (isCode(err, 'KLT_ERR_API_NOT_FOUND')) return heartbeat.createLease(newLease(params(input)));
      const fresh = await heartbeat.getLease(NODE_LEASE_NAMESPACE, input.nodeName);
      return heartbeat.updateLease(renewedLease(fresh, params(input)));
    }
  }

  return {
    renewLease: fromPromise<LeaseRenewal, RenewLeaseInput>(async ({ input }) => {
      if (input.attempt > 0) heartbeat.reopen();
      try {
        const lease = await renew(input);
        return { ok: true, lease, observedAtMs: clock.now() };
      } catch (err) {
        const error = serializeError(err);
        logger.warn({ node: input.nodeName, attempt: input.attempt, err: error }, 'Failed to update lease');
        return { ok: false, error, observedAtMs: clock.now() };
      }
    }),
  };
}
