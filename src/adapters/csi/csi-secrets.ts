/**
 * The node stage and publish secrets of a CSI volume (Go: csi_util.go getCredentialsFromSecret):
 * the Secret's data, decoded, handed to the driver and nowhere else. Messages name the Secret,
 * never a value.
 */
import { KubeletError } from '../../domain/errors.js';
import type { CsiObjectApi } from '../../ports/csi-objects.js';

export async function secretCredentials(api: Pick<CsiObjectApi, 'getSecret'> | undefined, kind: 'NodeStageSecretRef' | 'NodePublishSecretRef', namespace: string, name: string): Promise<Record<string, string>> {
  const failed = (why: string) => new KubeletError('KLT_ERR_VOLUME_MOUNT', `fetching ${kind} ${namespace}/${name} failed: failed to find the secret ${name} in the namespace ${namespace} with error: ${why}`);
  if (api === undefined) throw failed('no API server (standalone mode)');
  let secret;
  try {
    secret = await api.getSecret(namespace, name);
  } catch (error) {
    throw failed((error as Error).message);
  }
  if (secret === undefined) throw failed(`secrets "${name}" not found`);
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {})) credentials[key] = Buffer.from(value, 'base64').toString('utf8');
  return credentials;
}
