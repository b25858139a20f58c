/**
 * --image-credential-provider-config and --image-credential-provider-bin-dir at start-up (Go's
 * RegisterCredentialProviderPlugins): the bin dir must exist; the config is a file, or a directory
 * whose *.json, *.yaml and *.yml files are merged in lexical order (a provider name twice is an
 * error); every invalid field is reported at once; each provider's plugin must exist in the bin dir.
 * Any failure rejects with KLT_ERR_CONFIG_INVALID, and the kubelet does not start.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { decodeCredentialProviderConfig, validateCredentialProviders, type CredentialProvider } from '../../domain/credentials/provider-config.js';
import type { FieldError } from '../../domain/config/types.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { ImageCredentialProviders } from '../../ports/image-credentials.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';
import { parseStrictYaml } from '../bounded-input/strict-yaml.js';
import { describeYamlProblemsWithoutText } from '../bounded-input/yaml-problem-without-text.js';
import { execPlugin } from './exec-plugin.js';
import { createPluginProviders } from './plugin-providers.js';

const MAX_CONFIG_BYTES = 1024 * 1024;

const invalid = (message: string) => new KubeletError('KLT_ERR_CONFIG_INVALID', message);

export async function loadCredentialProviders(configPath: string, binDir: string, deps: { clock: Clock; logger: Logger }): Promise<ImageCredentialProviders> {
  const binInfo = await stat(binDir).catch((err: NodeJS.ErrnoException) => err);
  if (binInfo instanceof Error) {
    throw invalid(binInfo.code === 'ENOENT' ? `plugin binary directory ${binDir} did not exist` : `error inspecting binary directory ${binDir}: ${binInfo.message}`);
  }
  const providers = await readConfig(configPath);
  const errors = validateCredentialProviders(providers);
  if (errors.length > 0) throw invalid(`failed to validate credential provider config: ${listErrors(errors)}`);
  for (const p of providers) {
    const bin = join(binDir, p.name);
    const info = await stat(bin).catch(() => undefined);
    if (!info?.isFile()) throw invalid(`plugin binary executable ${bin} did not exist`);
  }
  return createPluginProviders({ providers, clock: deps.clock, logger: deps.logger, run: (provider, image, stdin) => execPlugin(binDir, provider, image, stdin) });
}

async function readConfig(configPath: string): Promise<CredentialProvider[]> {
  if (configPath === '') throw invalid('credential provider config path is empty');
  const info = await stat(configPath).catch((err: Error) => err);
  if (info instanceof Error) throw invalid(`unable to access path ${JSON.stringify(configPath)}: ${info.message}`);
  let files = [configPath];
  if (info.isDirectory()) {
    const entries = await readdir(configPath, { withFileTypes: true });
    files = entries.filter((e) => !e.isDirectory() && ['.json', '.yaml', '.yml'].includes(extname(e.name))).map((e) => join(configPath, e.name)).sort();
    if (files.length === 0) throw invalid(`no configuration files found in directory ${JSON.stringify(configPath)}`);
  }
  const merged: CredentialProvider[] = [];
  const names = new Set<string>();
  for (const file of files) {
    for (const p of await readConfigFile(file)) {
      if (names.has(p.name)) throw invalid(`duplicate provider name ${JSON.stringify(p.name)} found in configuration file(s)`);
      names.add(p.name);
      merged.push(p);
    }
  }
  return merged;
}

async function readConfigFile(file: string): Promise<CredentialProvider[]> {
  const { text } = await readRegularFile(file, MAX_CONFIG_BYTES).catch((err: Error) => {
    throw invalid(`unable to read file ${JSON.stringify(file)}: ${err.message}`);
  });
  const parsed = parseStrictYaml(text);
  // Its env may hold a credential: a YAML problem is told by place and kind, never by its text.
  if (!parsed.ok) throw invalid(`error decoding config, not YAML: ${describeYamlProblemsWithoutText(file, parsed.problems)}`);
  const docs = parsed.documents.filter((d) => !d.empty);
  if (docs.length !== 1) throw invalid(`error decoding config ${JSON.stringify(file)}: expected one document, found ${docs.length}`);
  const decoded = decodeCredentialProviderConfig(docs[0]!.value);
  if ('errors' in decoded) throw invalid(`error decoding config ${JSON.stringify(file)}: ${listErrors(decoded.errors)}`);
  return decoded.providers;
}

function listErrors(errors: readonly FieldError[]): string {
  return `[${errors.map((e) => `${e.field}: ${e.value === undefined ? '' : `${JSON.stringify(e.value)}: `}${e.message}`).join(', ')}]`;
}
