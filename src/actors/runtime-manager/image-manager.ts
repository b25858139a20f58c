/**
 * Makes sure a container's image is on the node before it is created (Go's imageManager
 * EnsureImageExists): ImageStatus first, then a pull only when the pull policy asks for one and
 * the image's pull back-off has ended (the pod worker keeps that back-off and says when it ends:
 * domain/runtime/image-pull-backoff.ts; a failed pull rejects with KLT_ERR_IMAGE_PULL for it to count).
 * Records Go's events about the container on the way: Pulling, Pulled (pulled, or already
 * present), Failed, BackOff, ErrImageNeverPull, InspectFailed.
 *
 * A pull sends each matching credential in turn (pull-credentials.ts), as Go's PullImage does, and
 * stops at the first that works; with none it pulls anonymously. When every credential fails the
 * errors are joined Go's way (one alone as is, several as `[a, b]`). Only the credential's source
 * (a secret's or a plugin's name) is logged and returned, never its values.
 */
import type { Logger } from '../../log.js';
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import { applyDefaultImageTag, effectivePullPolicy, shouldPullImage } from '../../domain/runtime/image-policy.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient, ImageSpec, PodSandboxConfig } from '../../ports/cri.js';
import type { RegistryCredential } from '../../domain/credentials/keyring.js';
import { pullCredentials, type PullCredentialSources } from './pull-credentials.js';
import { ContainerEventMessage, containerEvent } from '../../domain/runtime/container-events.js';
import type { EventRequest, EventType } from '../../domain/status-manager/event-aggregation.js';
import { EventReason } from '../../domain/status-manager/event-reasons.js';

export interface EnsuredImage {
  /** The image reference to create the container with. */
  ref: string;
  /** The source of the credential the pull succeeded with (`secret ns/name`, `plugin name`), when one was used. */
  pulledWith?: string;
}

export interface ImageManager {
  /**
   * Rejects with KLT_ERR_IMAGE_*: KLT_ERR_IMAGE_PULL_BACKOFF without pulling while the clock is
   * before `backOffEndsAtMs`, when given.
   */
  ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig, backOffEndsAtMs?: number): Promise<EnsuredImage>;
}

export interface ImageManagerOptions {
  cri: CriClient;
  clock: Clock;
  logger: Logger;
  recordEvent?: (event: EventRequest | undefined) => void;
  /** Image pull secrets and credential provider plugins. Default none: every pull is anonymous. */
  credentials?: PullCredentialSources;
}

export function createImageManager(opts: ImageManagerOptions): ImageManager {
  const log = opts.logger;

  return {
    async ensureImageExists(pod, container, sandboxConfig, backOffEndsAtMs) {
      const requested = container.image;
      const record = (type: EventType, reason: string, message: string) => opts.recordEvent?.(containerEvent(pod, container.name, type, reason, message));
      let image: string;
      try {
        image = applyDefaultImageTag(requested);
      } catch (err) {
        const message = `Failed to apply default image tag "${requested}"`;
        record('Warning', EventReason.FailedToInspectImage, `${message}: ${errorText(err)}`);
        throw new KubeletError('KLT_ERR_IMAGE_NAME_INVALID', message, { cause: err });
      }
      const spec = { image, annotations: { ...pod.metadata.annotations } };

      let imageRef = '';
      try {
        imageRef = (await opts.cri.images.imageStatus(spec)).image?.id ?? '';
      } catch (err) {
        record('Warning', EventReason.FailedToInspectImage, `Failed to inspect image "${requested}": ${errorText(err)}`);
        throw new KubeletError('KLT_ERR_IMAGE_INSPECT', `Failed to inspect image "${image}"`, { cause: err, retryable: true });
      }

      const policy = effectivePullPolicy(container);
      if (!shouldPullImage(policy, imageRef !== '')) {
        if (imageRef !== '') {
          log.debug({ image: requested }, 'Container image already present on machine');
          record('Normal', EventReason.PulledImage, ContainerEventMessage.alreadyPresent(requested));
          return { ref: imageRef };
        }
        const message = `Container image "${requested}" is not present with pull policy of Never`;
        record('Warning', EventReason.ErrImageNeverPullPolicy, message);
        throw new KubeletError('KLT_ERR_IMAGE_NEVER_PULL', message);
      }

      if (backOffEndsAtMs !== undefined && opts.clock.now() < backOffEndsAtMs) {
        record('Normal', EventReason.BackOffPullImage, `Back-off pulling image "${requested}"`);
        throw new KubeletError('KLT_ERR_IMAGE_PULL_BACKOFF', `Back-off pulling image "${requested}"`, { retryable: true });
      }
      log.info({ image: requested }, 'Pulling image');
      record('Normal', EventReason.PullingImage, ContainerEventMessage.pulling(requested));
      const started = opts.clock.now();
      try {
        const creds = opts.credentials ? await pullCredentials(opts.credentials, log, pod, image) : [];
        const pulled = await pullWith(opts.cri, spec, sandboxConfig, creds);
        const durationMs = opts.clock.now() - started;
        log.info({ image: requested, durationMs, ...(pulled.pulledWith ? { credentials: pulled.pulledWith } : {}) }, 'Successfully pulled image');
        record('Normal', EventReason.PulledImage, ContainerEventMessage.pulled(requested, durationMs));
        return pulled;
      } catch (err) {
        log.warn({ image: requested, err }, 'Failed to pull image');
        const reason = errorText(err);
        record('Warning', EventReason.FailedToPullImage, ContainerEventMessage.failedToPull(requested, reason));
        throw new KubeletError('KLT_ERR_IMAGE_PULL', `Failed to pull image "${requested}": ${reason}`, { cause: err, retryable: true });
      }
    },
  };
}

/** Anonymously without credentials, else each in turn until one works; Go's aggregate error when none does. */
async function pullWith(cri: CriClient, spec: ImageSpec, sandboxConfig: PodSandboxConfig, creds: RegistryCredential[]): Promise<EnsuredImage> {
  if (creds.length === 0) return { ref: await cri.images.pullImage(spec, sandboxConfig) };
  const errors: unknown[] = [];
  for (const c of creds) {
    try {
      return { ref: await cri.images.pullImage(spec, sandboxConfig, { auth: { username: c.username, password: c.password } }), pulledWith: c.source };
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  throw new Error(`[${errors.map(errorText).join(', ')}]`, { cause: errors[0] });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
