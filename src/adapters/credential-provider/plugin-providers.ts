/**
 * The credential provider plugins behind ImageCredentialProviders (Go's pluginProvider): for each
 * provider whose matchImages match the repository, a cached answer if one is still valid, else one
 * run of its plugin (concurrent asks for the same repository share the run), cached as the answer
 * says (provider-response.ts). A plugin that fails or answers badly contributes nothing: the error
 * is logged and the pull goes on with the other credentials, or anonymously.
 */
import type { CredentialProvider } from '../../domain/credentials/provider-config.js';
import { cachedAnswer, cachePlacement, parseProviderResponse, providerRequest, type CacheEntry } from '../../domain/credentials/provider-response.js';
import { urlsMatch } from '../../domain/credentials/url-match.js';
import type { DockerConfig } from '../../domain/credentials/keyring.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { ImageCredentialProviders } from '../../ports/image-credentials.js';

/** Runs the provider's plugin with the request on stdin: its stdout. */
export type PluginRunner = (provider: CredentialProvider, image: string, stdin: string) => Promise<string>;

export interface PluginProvidersOptions {
  providers: readonly CredentialProvider[];
  run: PluginRunner;
  clock: Clock;
  logger: Logger;
}

export function createPluginProviders(opts: PluginProvidersOptions): ImageCredentialProviders {
  const plugins = opts.providers.map((p) => pluginProvider(p, opts));
  return {
    async provide(repository) {
      const answers = await Promise.all(plugins.map(async (plugin) => ({ source: `plugin ${plugin.name}`, config: await plugin.provide(repository) })));
      return answers.filter((a) => Object.keys(a.config).length > 0);
    },
  };
}

function pluginProvider(provider: CredentialProvider, opts: PluginProvidersOptions) {
  const cache = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<DockerConfig>>();
  const log = opts.logger;

  async function exec(image: string): Promise<DockerConfig> {
    let stdout: string;
    try {
      stdout = await opts.run(provider, image, providerRequest(provider.apiVersion, image));
    } catch (err) {
      log.error({ err, plugin: provider.name, image }, 'Failed getting credential from external registry credential provider');
      return {};
    }
    const answer = parseProviderResponse(stdout, provider.apiVersion);
    if (answer instanceof Error) {
      log.error({ err: answer, plugin: provider.name, image }, 'Failed getting credential from external registry credential provider');
      return {};
    }
    const now = opts.clock.now();
    for (const [key, entry] of cache) if (entry.expiresAtMs < now) cache.delete(key);
    const placed = cachePlacement(answer, image, provider.defaultCacheDurationMs, now);
    if (placed) cache.set(placed.key, placed.entry);
    return answer.auth;
  }

  return {
    name: provider.name,
    async provide(image: string): Promise<DockerConfig> {
      if (!provider.matchImages.some((m) => urlsMatch(m, image))) return {};
      const cached = cachedAnswer(cache, image, opts.clock.now());
      if (cached) return cached;
      let run = inFlight.get(image);
      if (!run) {
        run = exec(image).finally(() => inFlight.delete(image));
        inFlight.set(image, run);
      }
      return run;
    },
  };
}
