/**
 * Image pull secrets read as docker configs (Go's secrets.MakeDockerKeyring and config.go's
 * DockerConfigEntry decoding): a `kubernetes.io/dockerconfigjson` secret's `.dockerconfigjson`
 * (`{"auths": {...}}`), or a `kubernetes.io/dockercfg` secret's `.dockercfg` (the map itself). Any
 * other type, or the key missing or empty, contributes nothing. An entry's `auth`, when set, is
 * base64 `user:password` and wins over `username`/`password`.
 *
 * A secret that does not decode fails the whole pull, as in Go; the message names the secret and
 * never its content.
 */
import type { DockerConfig } from './keyring.js';
import { isPlainObject } from '../config/decode.js';

export const DOCKER_CONFIG_JSON_TYPE = 'kubernetes.io/dockerconfigjson';
export const DOCKERCFG_TYPE = 'kubernetes.io/dockercfg';

export interface PullSecret {
  /** `namespace/name`, how the secret is named in messages. */
  ref: string;
  type?: string;
  data: Record<string, Buffer>;
}

/** The secret's docker config, undefined when its type or keys hold none; an Error when it does not decode. */
export function dockerConfigOf(secret: PullSecret): DockerConfig | undefined | Error {
  const json = secret.data['.dockerconfigjson'];
  const cfg = secret.data['.dockercfg'];
  let raw: unknown;
  try {
    if (secret.type === DOCKER_CONFIG_JSON_TYPE && json && json.length > 0) {
      const parsed: unknown = JSON.parse(json.toString('utf8'));
      raw = isPlainObject(parsed) ? parsed['auths'] ?? {} : parsed;
    } else if (secret.type === DOCKERCFG_TYPE && cfg && cfg.length > 0) {
      raw = JSON.parse(cfg.toString('utf8'));
    } else {
      return undefined;
    }
  } catch {
    return new Error(`image pull secret ${secret.ref}: its docker config is not valid JSON`);
  }
  if (!isPlainObject(raw)) return new Error(`image pull secret ${secret.ref}: its docker config is not an object of registries`);
  const config: DockerConfig = {};
  for (const [registry, entry] of Object.entries(raw)) {
    const decoded = decodeEntry(entry);
    if (decoded instanceof Error) return new Error(`image pull secret ${secret.ref}, registry ${JSON.stringify(registry)}: ${decoded.message}`);
    config[registry] = decoded;
  }
  return config;
}

function decodeEntry(entry: unknown): DockerConfig[string] | Error {
  if (entry === null) return { username: '', password: '' };
  if (!isPlainObject(entry)) return new Error('an entry must be an object');
  const text = (key: string): string | Error => {
    const v = entry[key];
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : new Error(`${key} must be a string`);
  };
  const [username, password, email, auth] = ['username', 'password', 'email', 'auth'].map(text);
  for (const v of [username, password, email, auth]) if (v instanceof Error) return v;
  const out = { username: username as string, password: password as string, ...(email ? { email: email as string } : {}) };
  if (auth === '') return out;
  // Go decodes with StdEncoding, which refuses what Node's lenient base64 would accept.
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(auth as string)) return new Error('auth is not valid base64');
  const pair = Buffer.from(auth as string, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon === -1) return new Error('unable to parse auth field, must be formatted as base64(username:password)');
  return { ...out, username: pair.slice(0, colon), password: pair.slice(colon + 1) };
}
