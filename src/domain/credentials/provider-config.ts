/**
 * The CredentialProviderConfig of --image-credential-provider-config, decoded and validated as Go's
 * plugin/config.go does (decode, then validateCredentialProviderConfig), every invalid field listed:
 * kind CredentialProviderConfig of group kubelet.config.k8s.io (v1, v1beta1 or v1alpha1); at least
 * one provider; each with a name usable as a file name in the bin dir and unique, a plugin
 * apiVersion of credentialprovider.kubelet.k8s.io, at least one matchImages entry that parses, and a
 * defaultCacheDuration >= 0. Fields Go's strict decoding does not know are errors too.
 *
 * Differs from Go: `tokenAttributes` (service account tokens handed to the plugin) is refused, not
 * acted on; a file of several configs merged by a directory is left to the adapter.
 */
import { parseGoDuration } from '../config/duration.js';
import type { FieldError } from '../config/types.js';
import { parseSchemelessUrl } from './url-match.js';
import { isPlainObject } from '../config/decode.js';

export const CONFIG_GROUP = 'kubelet.config.k8s.io';
const CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'].map((v) => `${CONFIG_GROUP}/${v}`);
export const PLUGIN_API_VERSIONS = ['credentialprovider.kubelet.k8s.io/v1', 'credentialprovider.kubelet.k8s.io/v1alpha1', 'credentialprovider.kubelet.k8s.io/v1beta1'];

export interface CredentialProvider {
  name: string;
  matchImages: string[];
  defaultCacheDurationMs: number;
  /** The plugin's request/response apiVersion. */
  apiVersion: string;
  args: string[];
  env: { name: string; value: string }[];
}

const TOP_FIELDS = new Set(['apiVersion', 'kind', 'providers']);
const PROVIDER_FIELDS = new Set(['name', 'matchImages', 'defaultCacheDuration', 'apiVersion', 'args', 'env', 'tokenAttributes']);

/** The providers of one decoded file (YAML or JSON already parsed), or every error found in it. */
export function decodeCredentialProviderConfig(doc: unknown): { providers: CredentialProvider[] } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err = (field: string, value: unknown, message: string) => errors.push({ field, value, message });
  if (!isPlainObject(doc)) return { errors: [{ field: '', value: undefined, message: 'a CredentialProviderConfig must be an object' }] };
  if (doc['kind'] !== 'CredentialProviderConfig') err('kind', doc['kind'], 'must be CredentialProviderConfig');
  if (typeof doc['apiVersion'] !== 'string' || !CONFIG_VERSIONS.includes(doc['apiVersion'])) err('apiVersion', doc['apiVersion'], `supported values: ${CONFIG_VERSIONS.map((v) => JSON.stringify(v)).join(', ')}`);
  for (const key of Object.keys(doc)) if (!TOP_FIELDS.has(key)) err(key, undefined, 'unknown field');
  const list = doc['providers'] ?? [];
  if (!Array.isArray(list)) err('providers', undefined, 'must be a list');
  const providers = Array.isArray(list) ? list.map((p, i) => decodeProvider(p, `providers[${i}]`, err)) : [];
  return errors.length > 0 ? { errors } : { providers: providers as CredentialProvider[] };
}

function decodeProvider(p: unknown, at: string, err: (field: string, value: unknown, message: string) => void): CredentialProvider | undefined {
  if (!isPlainObject(p)) {
    err(at, undefined, 'must be an object');
    return undefined;
  }
  // A misplaced or misspelt field is named without its value: it may be an env holding a credential.
  for (const key of Object.keys(p)) if (!PROVIDER_FIELDS.has(key)) err(`${at}.${key}`, undefined, 'unknown field');
  const strings = (key: string): string[] => {
    const v = p[key] ?? [];
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
    err(`${at}.${key}`, v, 'must be a list of strings');
    return [];
  };
  const name = typeof p['name'] === 'string' ? p['name'] : '';
  if (typeof p['name'] !== 'string') err(`${at}.name`, p['name'], 'must be a string');
  const apiVersion = typeof p['apiVersion'] === 'string' ? p['apiVersion'] : '';
  let defaultCacheDurationMs = 0;
  const duration = p['defaultCacheDuration'];
  if (duration !== undefined && duration !== null) {
    try {
      defaultCacheDurationMs = parseGoDuration(String(duration));
    } catch (e) {
      err(`${at}.defaultCacheDuration`, duration, (e as Error).message);
    }
  }
  const envList = Array.isArray(p['env']) ? p['env'] : p['env'] === undefined ? [] : (err(`${at}.env`, undefined, 'must be a list'), []);
  const env = envList.flatMap((e: unknown, i: number) => {
    if (isPlainObject(e) && typeof e['name'] === 'string' && typeof (e['value'] ?? '') === 'string') return [{ name: e['name'], value: String(e['value'] ?? '') }];
    err(`${at}.env[${i}]`, undefined, 'must be {name, value} strings');
    return [];
  });
  const provider: CredentialProvider = { name, matchImages: strings('matchImages'), defaultCacheDurationMs, apiVersion, args: strings('args'), env };
  if (p['tokenAttributes'] !== undefined) err(`${at}.tokenAttributes`, p['tokenAttributes'], 'service account tokens for credential providers are not supported by kubelet-ts');
  if (duration === undefined || duration === null) err(`${at}.defaultCacheDuration`, duration, 'Required value');
  return provider;
}

/** validateCredentialProviderConfig over decoded providers: every error, Go's field paths and messages. */
export function validateCredentialProviders(providers: readonly CredentialProvider[]): FieldError[] {
  const errors: FieldError[] = [];
  const err = (field: string, value: unknown, message: string) => errors.push({ field, value, message });
  if (providers.length === 0) err('providers', [], 'Required value: at least 1 item in plugins is required');
  const seen = new Set<string>();
  for (const p of providers) {
    if (p.name === '') err('providers.name', p.name, 'Required value');
    if (p.name.includes('/')) err('providers.name', p.name, "provider name cannot contain '/'");
    if (p.name.includes(' ')) err('providers.name', p.name, 'provider name cannot contain spaces');
    if (p.name === '.' || p.name === '..') err('providers.name', p.name, `provider name cannot be '${p.name}'`);
    if (seen.has(p.name)) err('providers.name', p.name, 'Duplicate value');
    seen.add(p.name);
    if (p.apiVersion === '') err('providers.apiVersion', p.apiVersion, 'Required value');
    else if (!PLUGIN_API_VERSIONS.includes(p.apiVersion)) err('providers.apiVersion', p.apiVersion, `Unsupported value: supported values: ${[...PLUGIN_API_VERSIONS].sort().map((v) => JSON.stringify(v)).join(', ')}`);
    if (p.matchImages.length === 0) err('providers.matchImages', [], 'Required value: at least 1 item in matchImages is required');
    for (const m of p.matchImages) {
      const parsed = parseSchemelessUrl(m);
      if (parsed instanceof Error) err('providers.matchImages', m, `match image is invalid: ${parsed.message}`);
    }
    if (p.defaultCacheDurationMs < 0) err('providers.defaultCacheDuration', p.defaultCacheDurationMs, 'defaultCacheDuration must be greater than or equal to 0');
  }
  return errors;
}
