/**
 * Registry credentials as the Go kubelet keeps them (pkg/credentialprovider keyring.go, config.go,
 * secrets/secrets.go): docker config entries from image pull secrets and credential provider
 * plugins, put in a keyring keyed by `host[/path]`, and looked up for the repository an image names.
 *
 * - Each entry's key is its registry as written, with any `http(s)://` and a leading `/v1/` or
 *   `/v2/` path dropped; the keys are sorted in reverse string order so that longer, more specific
 *   keys of a host come before shorter ones (`reg.io/team/app` before `reg.io/team` before `reg.io`).
 * - A lookup collects, in that order, the credentials of every key that matches the image
 *   (url-match.ts: glob host parts, equal port, path prefix); when none does and the image is on
 *   Docker Hub, the `index.docker.io` entry.
 * - Every credential keeps where it came from (`source`: a secret's or a plugin's name), which is
 *   all the kubelet may log or journal about it: the values themselves never leave the pull.
 */
import { parseImageReference } from '../runtime/image-policy.js';
import { parseSchemelessUrl, urlsMatch } from './url-match.js';

export interface RegistryCredential {
  username: string;
  password: string;
  email?: string;
  /** Where it came from: `secret <namespace>/<name>` or `plugin <name>`, for logs and the journal. */
  source: string;
}

/** A docker config: registry → credentials, before they are put in a keyring. */
export type DockerConfig = Record<string, { username: string; password: string; email?: string }>;

export interface Keyring {
  /** Keys, most specific first. */
  readonly index: readonly string[];
  readonly creds: ReadonlyMap<string, readonly RegistryCredential[]>;
}

const DEFAULT_REGISTRY_HOST = 'index.docker.io';

/** A BasicDockerKeyring holding every config, in order; unparsable registries are left out, as Go does. */
export function buildKeyring(configs: readonly { source: string; config: DockerConfig }[]): Keyring {
  const creds = new Map<string, RegistryCredential[]>();
  for (const { source, config } of configs) {
    for (const [registry, entry] of Object.entries(config)) {
      const key = keyringKey(registry);
      if (key === undefined) continue;
      const list = creds.get(key) ?? [];
      list.push({ username: entry.username, password: entry.password, ...(entry.email ? { email: entry.email } : {}), source });
      creds.set(key, list);
    }
  }
  const index = [...creds.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return { index, creds };
}

function keyringKey(registry: string): string | undefined {
  const withoutScheme = registry.replace(/^https?:\/\//, '');
  const parsed = parseSchemelessUrl(withoutScheme);
  if (parsed instanceof Error) return undefined;
  let path = parsed.path;
  if (path.startsWith('/v2/') || path.startsWith('/v1/')) path = path.slice(3);
  return path !== '' && path !== '/' ? parsed.host + path : parsed.host;
}

/** Every matching credential, most specific key first; empty when none applies (pull anonymously). */
export function lookupCredentials(keyring: Keyring, repository: string): RegistryCredential[] {
  const found = keyring.index.filter((key) => urlsMatch(key, repository)).flatMap((key) => keyring.creds.get(key) ?? []);
  if (found.length > 0) return found;
  if (isDefaultRegistryMatch(repository)) return [...(keyring.creds.get(DEFAULT_REGISTRY_HOST) ?? [])];
  return [];
}

/** Docker Hub's images: no registry host in the first component, or docker.io / index.docker.io. */
function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf('/');
  if (slash === -1) return image !== '';
  const first = image.slice(0, slash);
  if (first === '') return false;
  if (first === 'docker.io' || first === 'index.docker.io') return true;
  return !/[.:]/.test(first);
}

/**
 * The repository the keyring is asked about (Go's ParseImageName → ParseNormalizedNamed().Name()):
 * the image without tag or digest, with Docker Hub's domain and `library/` filled in.
 */
export function repositoryToPull(image: string): string {
  const { name } = parseImageReference(image);
  const slash = name.indexOf('/');
  const first = slash === -1 ? '' : name.slice(0, slash);
  const isDomain = first !== '' && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase());
  let domain = isDomain ? first : 'docker.io';
  let remainder = isDomain ? name.slice(slash + 1) : name;
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return `${domain}/${remainder}`;
}
