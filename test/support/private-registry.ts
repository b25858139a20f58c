/**
 * A private registry for pull-credential tests: Debian's docker-registry (the CNCF distribution
 * registry) on 127.0.0.1 with TLS (a CA made here with openssl) and htpasswd (bcrypt) authentication,
 * images pushed into it with skopeo, and containerd told to trust the CA through a hosts.toml in
 * the directory up.sh gave containerd as registry.config_path (REGISTRY_CONFIG_DIR).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, until } from './daemon.js';
import type { RealPart } from './real-parts.js';

const TOOLS = ['docker-registry', 'skopeo', 'htpasswd', 'openssl'];

function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(d, tool)));
}

/** The registry's tools and containerd's hosts directory. */
export function privateRegistryPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  const missing = [
    ...TOOLS.filter((t) => !onPath(t)).map((t) => `${t} is not installed (apt-get install docker-registry skopeo apache2-utils openssl)`),
    env.KUBELET_IT_CRI_REGISTRY_CONFIG ? '' : 'KUBELET_IT_CRI_REGISTRY_CONFIG is unset (start containerd with REGISTRY_CONFIG_DIR=… bash .ci/containerd/up.sh)',
  ].filter(Boolean);
  return { name: 'a private registry (docker-registry, skopeo, htpasswd, containerd\'s registry config dir)', missing: missing.join('; ') };
}

export interface PrivateRegistry {
  /** 127.0.0.1:PORT */
  host: string;
  username: string;
  password: string;
  /** Copies the OCI archive to `<host>/<repository>:<tag>` with the registry's credentials. */
  push: (ociArchive: string, repositoryAndTag: string) => void;
  stop: () => Promise<void>;
}

export async function startPrivateRegistry(opts: { hostsDir: string }): Promise<PrivateRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const username = 'puller';
  const password = `pw-${process.pid}-${port}`;
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=kubelet-ts test registry CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.ext');
  mkdirSync(join(dir, 'certs'));
  writeFileSync(join(dir, 'certs', 'ca.crt'), readFileSync(join(dir, 'ca.crt')));
  writeFileSync(join(dir, 'htpasswd'), execFileSync('htpasswd', ['-Bbn', username, password]));
  writeFileSync(join(dir, 'config.yml'), [
    'version: 0.1',
    'log: {level: warn, accesslog: {disabled: true}}',
    `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
    `http: {addr: "${host}", secret: kubelet-ts-test, tls: {certificate: ${join(dir, 'server.crt')}, key: ${join(dir, 'server.key')}}}`,
    `auth: {htpasswd: {realm: kubelet-ts-test, path: ${join(dir, 'htpasswd')}}}`,
    '',
  ].join('\n'));

  let log = '';
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const ca = readFileSync(join(dir, 'ca.crt'));
  await until('the registry answers /v2/ with 401 over TLS', () => statusOf(port, ca).then((s) => s === 401), 20_000, () => log);

  // containerd reads <config_path>/<host>/hosts.toml at each pull.
  const hostDir = join(opts.hostsDir, host);
  mkdirSync(hostDir, { recursive: true });
  writeFileSync(join(hostDir, 'hosts.toml'), `server = "https://${host}"\n\n[host."https://${host}"]\n  capabilities = ["pull", "resolve"]\n  ca = "${join(dir, 'ca.crt')}"\n`);

  return {
    host, username, password,
    push: (ociArchive, repositoryAndTag) => {
      execFileSync('skopeo', ['--insecure-policy', 'copy', '--quiet', '--dest-creds', `${username}:${password}`, '--dest-cert-dir', join(dir, 'certs'),
        `oci-archive:${ociArchive}`, `docker://${host}/${repositoryAndTag}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(hostDir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function statusOf(port: number, ca: Buffer): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/v2/', ca, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}
