/**
 * The VolumeSources port, built: the ConfigMap and Secret managers (one generic object manager
 * each, with the configMapAndSecretChangeDetectionStrategy) and the token manager, over the main
 * API client. Go: the ConfigMapManager, SecretManager and TokenManager that NewMainKubelet builds,
 * and that the pod manager registers pods with.
 *
 * Without an API server (standalone mode) every read rejects with KLT_ERR_VOLUME_SOURCE, as Go's
 * managers answer "cannot use ... when kubelet is in standalone mode".
 */
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { VolumeApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import { CONFIG_MAP_KIND, SECRET_KIND, createObjectManager, type ChangeDetectionStrategy } from './object-manager.js';
import { createTokenManager } from './token-manager.js';

export interface VolumeSourcesOptions {
  api: VolumeApi;
  clock: Clock;
  logger: Logger;
  /** configMapAndSecretChangeDetectionStrategy (default Watch). */
  strategy?: ChangeDetectionStrategy;
  /** Cache: how long a fetched object is served (default 1 min). */
  cacheTtlMs?: number;
  /** Watch: a watch not read for this long stops until the next read (Go: 5 × syncFrequency; default 5 min). */
  watchMaxIdleMs?: number;
}

/** VolumeSources that own watches and timers: `close()` stops them all. */
export interface ClosableVolumeSources extends VolumeSources {
  close(): void;
}

export function createVolumeSources(opts: VolumeSourcesOptions): ClosableVolumeSources {
  const strategy = opts.strategy ?? 'Watch';
  const shared = {
    api: opts.api,
    clock: opts.clock,
    logger: opts.logger,
    strategy,
    ...(opts.cacheTtlMs === undefined ? {} : { cacheTtlMs: opts.cacheTtlMs }),
    ...(opts.watchMaxIdleMs === undefined ? {} : { watchMaxIdleMs: opts.watchMaxIdleMs }),
  };
  const configMaps = createObjectManager({ ...shared, kind: CONFIG_MAP_KIND });
  const secrets = createObjectManager({ ...shared, kind: SECRET_KIND });
  const tokens = createTokenManager({ api: opts.api, clock: opts.clock, logger: opts.logger });
  return {
    configMap: (namespace, name) => configMaps.get(namespace, name),
    secret: (namespace, name) => secrets.get(namespace, name),
    serviceAccountToken: (spec) => tokens.get(spec),
    registerPod(pod) {
      configMaps.registerPod(pod);
      secrets.registerPod(pod);
    },
    unregisterPod(podUid) {
      configMaps.unregisterPod(podUid);
      secrets.unregisterPod(podUid);
      tokens.dropPod(podUid);
    },
    close() {
      configMaps.close();
      secrets.close();
      tokens.close();
    },
  };
}

function standalone(what: string): Promise<never> {
  return Promise.reject(new KubeletError('KLT_ERR_VOLUME_SOURCE', `${what}: the volume needs an API server, and the kubelet is in standalone mode (no --kubeconfig)`));
}

/** Standalone mode: no API server, so no ConfigMap, Secret or token; registering pods is a no-op. */
export function createStandaloneVolumeSources(): ClosableVolumeSources {
  return {
    configMap: (namespace, name) => standalone(`configmap ${namespace}/${name}`),
    secret: (namespace, name) => standalone(`secret ${namespace}/${name}`),
    serviceAccountToken: (spec) => standalone(`token of service account ${spec.namespace}/${spec.serviceAccountName}`),
    registerPod: () => {},
    unregisterPod: () => {},
    close: () => {},
  };
}
