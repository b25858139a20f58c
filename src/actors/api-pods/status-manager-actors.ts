/**
 * The status manager's effects over the API server (PodApi): they never reject, a failure comes
 * back as data and the machine retries at the next status or resync, as Go does.
 * - patchPodStatus: the merge patch on pods/{name}/status.
 * - deletePod: grace 0 with the UID precondition; a pod already gone, or replaced by another of the
 *   same name (precondition failed), counts as deleted (Go ignores NotFound the same way).
 * - createMirrorPod: AlreadyExists is fine when the existing pod carries the same hash (Go's
 *   CreateMirrorPod checks the same).
 * - deleteMirrorPod: grace 0 with the UID precondition; NotFound is fine.
 */
import { KubeletError, serializeError } from '../../domain/errors.js';
import { fromAnsweringPromise } from '../../machines/answering-effect.js';
import { CONFIG_MIRROR_ANNOTATION } from '../../domain/pod-config/types.js';
import type { Pod } from '../../domain/pod/types.js';
import type { PatchedPodStatus, StatusEffect, StatusEffectResult } from '../../domain/status-manager/status-sync.js';
import type { Logger } from '../../log.js';
import type { PodApi } from '../../ports/apiserver.js';
import { podFromApi, toApiObject } from './api-objects.js';

type EffectOf<K extends StatusEffect['kind']> = Extract<StatusEffect, { kind: K }>;

const hasCode = (err: unknown, ...codes: string[]): boolean => err instanceof KubeletError && codes.includes(err.code);

export interface StatusManagerActorDeps {
  pods: Pick<PodApi, 'patchPodStatus' | 'deletePod' | 'createPod' | 'getPod'>;
  logger: Logger;
}

export function createStatusManagerActors({ pods, logger }: StatusManagerActorDeps) {
  /**
   * Grace 0 with the UID precondition. 'deleted', or 'gone' when it already was (NotFound) or was
   * replaced by another of the same name (the precondition failed); anything else throws.
   */
  const deleteAtOnce = async (input: { namespace: string; name: string; uid: string }): Promise<'deleted' | 'gone'> => {
    try {
      await pods.deletePod(input.namespace, input.name, { gracePeriodSeconds: 0, uid: input.uid });
      return 'deleted';
    } catch (err) {
      if (hasCode(err, 'KLT_ERR_API_NOT_FOUND', 'KLT_ERR_API_CONFLICT')) return 'gone';
      throw err;
    }
  };
  return {
    patchPodStatus: fromAnsweringPromise<StatusEffectResult, EffectOf<'patchPodStatus'>>(async (input) => {
      try {
        const stored = await pods.patchPodStatus(input.namespace, input.name, input.patch);
        logger.debug({ pod: `${input.namespace}/${input.name}`, podUid: input.podUid, version: input.version }, 'Status for pod updated successfully');
        return { kind: 'patchPodStatus', podUid: input.podUid, version: input.version, ok: true, pod: patchedStatusOf(podFromApi(stored)) };
      } catch (err) {
        logger.warn({ err, pod: `${input.namespace}/${input.name}`, podUid: input.podUid }, 'Failed to update status for pod');
        return { kind: 'patchPodStatus', podUid: input.podUid, version: input.version, ok: false, error: serializeError(err) };
      }
    }),
    deletePod: fromAnsweringPromise<StatusEffectResult, EffectOf<'deletePod'>>(async (input) => {
      try {
        if (await deleteAtOnce(input) === 'deleted') logger.info({ pod: `${input.namespace}/${input.name}`, podUid: input.podUid }, 'Pod fully terminated and removed from etcd');
        return { kind: 'deletePod', podUid: input.podUid, ok: true };
      } catch (err) {
        logger.warn({ err, pod: `${input.namespace}/${input.name}` }, 'Failed to delete status for pod');
        return { kind: 'deletePod', podUid: input.podUid, ok: false, error: serializeError(err) };
      }
    }),
    createMirrorPod: fromAnsweringPromise<StatusEffectResult, EffectOf<'createMirrorPod'>>(async (input) => {
      const namespace = input.pod.metadata.namespace ?? 'default';
      const wantedHash = input.pod.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION];
      try {
        // The API server assigns the UID: the mirror is sent without one.
        const { uid: _none, ...metadata } = input.pod.metadata;
        const stored = await pods.createPod(namespace, toApiObject({ ...input.pod, metadata }));
        logger.info({ pod: `${namespace}/${input.pod.metadata.name}` }, 'Created mirror pod');
        return { kind: 'createMirrorPod', fullName: input.fullName, ok: true, pod: podFromApi(stored) };
      } catch (err) {
        if (hasCode(err, 'KLT_ERR_API_ALREADY_EXISTS')) {
          try {
            const existing = podFromApi(await pods.getPod(namespace, input.pod.metadata.name));
            if (existing.metadata.annotations?.[CONFIG_MIRROR_ANNOTATION] === wantedHash) {
              return { kind: 'createMirrorPod', fullName: input.fullName, ok: true, pod: existing };
            }
          } catch {
            // fall through: reported as the create's failure
          }
        }
        logger.warn({ err, pod: `${namespace}/${input.pod.metadata.name}` }, 'Failed creating a mirror pod');
        return { kind: 'createMirrorPod', fullName: input.fullName, ok: false, error: serializeError(err) };
      }
    }),
    deleteMirrorPod: fromAnsweringPromise<StatusEffectResult, EffectOf<'deleteMirrorPod'>>(async (input) => {
      try {
        if (await deleteAtOnce(input) === 'deleted') logger.info({ pod: `${input.namespace}/${input.name}`, podUid: input.uid }, 'Deleted mirror pod');
        return { kind: 'deleteMirrorPod', fullName: input.fullName, ok: true };
      } catch (err) {
        logger.warn({ err, pod: `${input.namespace}/${input.name}` }, 'Failed deleting a mirror pod');
        return { kind: 'deleteMirrorPod', fullName: input.fullName, ok: false, error: serializeError(err) };
      }
    }),
  };
}

/** What the status manager reads of a patch's answer; fields the pod lacks stay out (the journal would write them null). */
function patchedStatusOf({ metadata, status }: Pod): PatchedPodStatus {
  return {
    metadata: { uid: metadata.uid, ...(metadata.resourceVersion !== undefined ? { resourceVersion: metadata.resourceVersion } : {}) },
    ...(status !== undefined ? { status } : {}),
  };
}
