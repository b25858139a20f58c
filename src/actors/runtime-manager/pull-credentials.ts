/**
 * The credentials to try, in order, for one image pull (Go: Kubelet.getPullSecretsForPod, then
 * kuberuntime PullImage's keyring): the pod's image pull secrets as a keyring, then the credential
 * provider plugins' answers as another, each looked up for the image's repository. A secret that
 * cannot be read is logged and skipped (the pull may still work); one that does not decode fails
 * the pull. Service accounts' imagePullSecrets need nothing here: the API server's ServiceAccount
 * admission copied them into the pod's spec when the pod was created.
 */
import { buildKeyring, lookupCredentials, repositoryToPull, type DockerConfig, type RegistryCredential } from '../../domain/credentials/keyring.js';
import { dockerConfigOf } from '../../domain/credentials/pull-secrets.js';
import type { Pod } from '../../domain/pod/types.js';
import type { Logger } from '../../log.js';
import type { ImageCredentialProviders } from '../../ports/image-credentials.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import type { KeyedData } from '../../domain/volumes/sources.js';

export interface PullCredentialSources {
  /** The Secret manager; absent standalone, where every pull secret is unreadable (as in Go). */
  secrets?: VolumeSources;
  providers?: ImageCredentialProviders;
}

/** What pod.spec.imagePullSecrets holds, beyond the fields kubelet-ts types. */
type WithPullSecrets = Pod['spec'] & { imagePullSecrets?: { name?: string }[] };

export async function pullCredentials(sources: PullCredentialSources, log: Logger, pod: Pod, image: string): Promise<RegistryCredential[]> {
  const repository = repositoryToPull(image);
  const fromSecrets = await pullSecretConfigs(sources.secrets, log, pod);
  const fromPlugins = sources.providers ? await sources.providers.provide(repository) : [];
  return [...lookupCredentials(buildKeyring(fromSecrets), repository), ...lookupCredentials(buildKeyring(fromPlugins), repository)];
}

async function pullSecretConfigs(secrets: VolumeSources | undefined, log: Logger, pod: Pod): Promise<{ source: string; config: DockerConfig }[]> {
  const names = ((pod.spec as WithPullSecrets).imagePullSecrets ?? []).map((r) => r.name ?? '').filter((n) => n !== '');
  if (names.length === 0) return [];
  const namespace = pod.metadata.namespace ?? 'default';
  const podName = `${namespace}/${pod.metadata.name}`;
  secrets?.registerPod(pod);
  const configs: { source: string; config: DockerConfig }[] = [];
  for (const name of names) {
    const ref = `${namespace}/${name}`;
    let secret: KeyedData | undefined;
    try {
      secret = secrets ? await secrets.secret(namespace, name) : undefined;
      if (!secret) throw new Error(secrets ? `secret "${name}" not found` : 'no kubeClient defined');
    } catch (err) {
      log.info({ pod: podName, secret: ref, err }, 'Unable to retrieve pull secret, the image pull may not succeed.');
      continue;
    }
    const config = dockerConfigOf({ ref, data: secret.data, ...(secret.type !== undefined ? { type: secret.type } : {}) });
    if (config instanceof Error) throw config;
    if (config) configs.push({ source: `secret ${ref}`, config });
  }
  return configs;
}
