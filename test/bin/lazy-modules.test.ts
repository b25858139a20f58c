/**
 * The daemon loads a server's modules only when it starts that server, and no subcommand's: start-up
 * time is mostly module loading (docs/BENCHMARKS.md). Checked on the built binary, with a resolve
 * hook that logs every module the process loads until the supervisor reaches `running`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestApiServer } from '../apiserver/index.js';
import { freePort } from '../support/daemon.js';
import { modulesUntilRunning as modulesOf } from '../support/module-log/modules-until-running.js';

const BIN = resolve('dist/src/bin/kubelet.js');

/** The modules the daemon on the embedded runtime loaded up to `running`, as paths under dist/ or node_modules/. */
const modulesUntilRunning = (flags: string[]) => modulesOf(BIN, 'embedded', flags);

// The debug server's journal feed is not among them: the journal fills it whether or not a server reads it.
const serverModules = (loaded: string[]) => loaded.filter((m) =>
  m.startsWith('node_modules/fastify/') || (m.includes('/adapters/debug-server/') && !m.endsWith('/journal-feed.js'))
  || m.includes('/adapters/visualizer/') || m.includes('/adapters/http/kubelet-server/') || m.endsWith('/adapters/http/healthz.js'));

describe('the daemon\'s modules', () => {
  it('loads no server and no subcommand when every server is off', async () => {
    const loaded = await modulesUntilRunning(['--debug-address=', '--healthz-port=0', '--enable-server=false']);
    expect(loaded).toContain('dist/src/bin/daemon.js');
    expect(serverModules(loaded)).toEqual([]);
    expect(loaded.filter((m) => m.includes('/bin/commands/'))).toEqual([]);
    // The certificate renewal's adapters wait for the first renewal.
    expect(loaded.filter((m) => m.endsWith('/adapters/certificates/renewal.js') || m.endsWith('/adapters/pki/x509.js'))).toEqual([]);
    expect(loaded).toContain('dist/src/bin/certificate-renewal.js');
  }, 30_000);

  it('loads each server it starts', async () => {
    const loaded = await modulesUntilRunning([
      `--debug-address=127.0.0.1:${await freePort()}`, `--healthz-port=${await freePort()}`, '--healthz-bind-address=127.0.0.1',
      `--port=${await freePort()}`, '--address=127.0.0.1', '--read-only-port=0',
    ]);
    const servers = serverModules(loaded);
    expect(servers).toEqual(expect.arrayContaining([
      'node_modules/fastify/fastify.js', 'dist/src/adapters/debug-server/server.js',
      'dist/src/adapters/http/kubelet-server/server.js', 'dist/src/adapters/http/healthz.js',
    ]));
    // healthz listens before the CRI's gRPC modules are loaded (at run.preInitRuntime): it waits for neither.
    const grpc = loaded.findIndex((m) => m.startsWith('node_modules/@grpc/grpc-js/'));
    expect(grpc).toBeGreaterThan(loaded.indexOf('dist/src/adapters/http/healthz.js'));
    expect(loaded.indexOf('dist/src/adapters/http/healthz.js')).toBeGreaterThan(-1);
  }, 30_000);

  // fastify is the debug server's alone: a kubelet serving its API without the debug server
  // must not pay for loading it.
  const fastify = (loaded: string[]) => loaded.filter((m) => m.startsWith('node_modules/fastify/'));
  const kubeletServers = async () => [`--port=${await freePort()}`, '--address=127.0.0.1', `--read-only-port=${await freePort()}`];

  it('serves the kubelet server and the read-only port without loading fastify', async () => {
    const loaded = await modulesUntilRunning(['--debug-address=', '--healthz-port=0', ...await kubeletServers()]);
    expect(loaded).toContain('dist/src/adapters/http/kubelet-server/server.js');
    expect(fastify(loaded)).toEqual([]);
  }, 30_000);

  it('loads no fastify in a cluster daemon without the debug server', async () => {
    const api = await startTestApiServer();
    const dir = mkdtempSync(join(tmpdir(), 'kts-lazy-cluster-'));
    try {
      const loaded = await modulesUntilRunning([
        '--debug-address=', '--healthz-port=0', ...await kubeletServers(), `--kubeconfig=${api.kubeconfigPath(dir)}`,
        '--embedded-runtime-allow-cluster', '--hostname-override=lazy-modules-node',
      ]);
      expect(loaded).toContain('dist/src/adapters/http/kubelet-server/server.js');
      expect(loaded).toEqual(expect.arrayContaining(['dist/src/adapters/apiserver/create-api-clients.js', 'dist/src/actors/view/api-reviewers.js']));
      expect(fastify(loaded)).toEqual([]);
    } finally {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
