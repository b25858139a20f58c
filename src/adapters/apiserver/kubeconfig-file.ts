/**
 * --kubeconfig read the way client-go reads it, for the kubelet's own API client (rest-client.ts):
 * the current context's cluster (server, CA from a file or inline, insecure-skip-tls-verify,
 * tls-server-name) and user (client certificate and key from files or inline, token, tokenFile,
 * username/password). Relative paths are relative to the kubeconfig's own directory, as in Go.
 *
 * An exec plugin or auth-provider user is not handled here: `external` says so, and the caller
 * gets its credentials from @kubernetes/client-node's KubeConfig (which runs the plugin and caches
 * its token), loaded only then. Kubelet kubeconfigs use client certificates almost always, so the
 * CPU and memory that loading client-node costs (rest-client.ts) are paid only by the nodes that
 * need it.
 * Every problem is a KLT_ERR_API_CONFIG naming the field, or for text that is not YAML (or JSON) the
 * line and column: never the text itself, which is often a token or a key.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { isPlainObject } from '../../domain/config/decode.js';
import { parseStrictYaml } from '../bounded-input/strict-yaml.js';
import { describeYamlProblemsWithoutText } from '../bounded-input/yaml-problem-without-text.js';

export interface KubeconfigCluster {
  server: string;
  /** PEM; absent: the system's roots. */
  ca?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
}

export interface KubeconfigUser {
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  /** Re-read when the cached token is older than a minute (client-go's cached file token source). */
  tokenFile?: string;
  basic?: { username: string; password: string };
  /** An exec plugin or auth-provider: credentials come from client-node (see above). */
  external: boolean;
}

export interface Kubeconfig {
  path: string;
  cluster: KubeconfigCluster;
  user: KubeconfigUser;
}

const configError = (path: string, what: string) => new KubeletError('KLT_ERR_API_CONFIG', `invalid kubeconfig ${path}: ${what}`);

type Entry = Record<string, unknown>;

/** The `<kind>` entry of the list `<list>` named `name`: `{ name, <kind>: {...} }`. */
function named(doc: Entry, list: string, kind: string, name: string, path: string): Entry {
  const items = doc[list];
  const found = Array.isArray(items) ? items.find((i): i is Entry => isPlainObject(i) && i.name === name) : undefined;
  if (!found) throw configError(path, `${list}: no ${kind} named "${name}"`);
  const body = found[kind];
  if (!isPlainObject(body)) throw configError(path, `${list}["${name}"].${kind}: not an object`);
  return body;
}

function optionalString(entry: Entry, field: string, where: string, path: string): string | undefined {
  const v = entry[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw configError(path, `${where}.${field}: not a string`);
  return v;
}

/** A path from the kubeconfig at `kubeconfigPath`: relative ones are relative to its directory. */
const relativeTo = (kubeconfigPath: string, file: string) => (isAbsolute(file) ? file : join(dirname(kubeconfigPath), file));

/** A `<field>-data` (base64) or a `<field>` (file path) pair, as bytes; data wins, as in client-go. */
function fileOrData(entry: Entry, field: string, where: string, path: string): Buffer | undefined {
  const data = optionalString(entry, `${field}-data`, where, path);
  if (data !== undefined) return Buffer.from(data, 'base64');
  const file = optionalString(entry, field, where, path);
  if (file === undefined) return undefined;
  const resolved = relativeTo(path, file);
  try {
    return readFileSync(resolved);
  } catch (err) {
    throw configError(path, `${where}.${field}: cannot read ${resolved}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The one document of the file, as plain data. */
function documentOf(text: string, path: string): unknown {
  const parsed = parseStrictYaml(text);
  if (!parsed.ok) throw new KubeletError('KLT_ERR_API_CONFIG', `invalid kubeconfig, not YAML: ${describeYamlProblemsWithoutText(path, parsed.problems)}`);
  const documents = parsed.documents.filter((d) => !d.empty);
  if (documents.length > 1) throw configError(path, `${documents.length} YAML documents where one was expected`);
  return documents[0]?.value ?? null;
}

export function parseKubeconfig(text: string, path: string): Kubeconfig {
  const doc = documentOf(text, path);
  if (!isPlainObject(doc)) throw configError(path, 'not a kubeconfig (expected a mapping)');
  const contextName = doc['current-context'];
  if (typeof contextName !== 'string' || contextName === '') throw configError(path, 'no current-context');
  const context = named(doc, 'contexts', 'context', contextName, path);
  const clusterName = optionalString(context, 'cluster', `contexts["${contextName}"].context`, path);
  if (clusterName === undefined) throw configError(path, `contexts["${contextName}"]: no cluster`);
  const c = named(doc, 'clusters', 'cluster', clusterName, path);
  const where = `clusters["${clusterName}"].cluster`;
  const server = optionalString(c, 'server', where, path);
  if (server === undefined) throw configError(path, `${where}.server: missing`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    // Not quoted: a server URL may carry a user's password.
    throw configError(path, `${where}.server: not a URL (${server.length} characters, not shown)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw configError(path, `${where}.server: ${url.protocol} is neither https: nor http:`);
  if (c['proxy-url'] !== undefined) throw configError(path, `${where}.proxy-url: proxies are not supported by kubelet-ts`);
  const ca = fileOrData(c, 'certificate-authority', where, path);
  const tlsServerName = optionalString(c, 'tls-server-name', where, path);
  const cluster: KubeconfigCluster = { server, insecureSkipTlsVerify: c['insecure-skip-tls-verify'] === true, ...(ca ? { ca } : {}), ...(tlsServerName ? { tlsServerName } : {}) };

  const userName = optionalString(context, 'user', `contexts["${contextName}"].context`, path);
  const user = userName === undefined ? { external: false } : userOf(named(doc, 'users', 'user', userName, path), `users["${userName}"].user`, path);
  return { path, cluster, user };
}

function userOf(u: Entry, where: string, path: string): KubeconfigUser {
  for (const unsupported of ['as', 'as-uid', 'as-groups', 'as-user-extra']) {
    if (u[unsupported] !== undefined) throw configError(path, `${where}.${unsupported}: impersonation is not supported by kubelet-ts`);
  }
  const cert = fileOrData(u, 'client-certificate', where, path);
  const key = fileOrData(u, 'client-key', where, path);
  if ((cert === undefined) !== (key === undefined)) throw configError(path, `${where}: client-certificate and client-key must be given together`);
  const token = optionalString(u, 'token', where, path);
  const tokenFile = optionalString(u, 'tokenFile', where, path);
  const username = optionalString(u, 'username', where, path);
  return {
    ...(cert && key ? { cert, key } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(token === undefined && tokenFile !== undefined ? { tokenFile: relativeTo(path, tokenFile) } : {}),
    ...(username !== undefined ? { basic: { username, password: optionalString(u, 'password', where, path) ?? '' } } : {}),
    external: u.exec !== undefined || u['auth-provider'] !== undefined,
  };
}

export function readKubeconfig(path: string): Kubeconfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(path, `cannot read it: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseKubeconfig(text, path);
}
