/**
 * serverTLSBootstrap against a signer that issues expired certificates: a fault no real signer can
 * be made to commit on demand, so it runs on the test API server (test/apiserver), whose CSR
 * controller approves and signs with the validity a test sets. Everything a real control plane can
 * do with certificates (bootstrap, renewals, the serving CSR approved) is in tls-bootstrap.e2e,
 * certificate-rotation.e2e and real-control-plane.e2e. Embedded runtime.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { freePort, until } from '../support/daemon.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

describe('serverTLSBootstrap against a signer that issues expired certificates', () => {
  const node = 'node-expired-serving';
  let dir: string;
  let api: TestApiServer;
  let child: ReturnType<typeof spawn> | null = null;
  let stderr = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-expired-serving-'));
    api = await startTestApiServer({ tls: true });
    // Approved and signed at once, but expired an hour before they are issued.
    api.csr!.policy.validitySeconds = -3600;
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('backs off instead of asking again at once: each wait between CSRs twice the last, from 2 s, each failure said in Go\'s words', async () => {
    const client = await api.issueClientCertificate(`system:node:${node}`, ['system:nodes']);
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', `podLogsDir: ${join(dir, 'logs')}`,
      'containerRuntimeEndpoint: embedded', 'healthzPort: 0', 'address: 127.0.0.1', `port: ${await freePort()}`, 'serverTLSBootstrap: true', '',
    ].join('\n'));
    child = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--cert-dir=${join(dir, 'pki')}`,
      `--kubeconfig=${api.kubeconfigPath(dir, { clientCertificate: client })}`, '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${node}`,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const servingCsrs = () => (api.store.list('certificatesigningrequests').items as { spec: { signerName: string } }[])
      .filter((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving').length;
    const csrPosts = () => api.requests.filter((r) => r.method === 'POST' && r.path === '/apis/certificates.k8s.io/v1/certificatesigningrequests');
    await until('three serving CSRs', () => servingCsrs() >= 3, 60_000, () => stderr);
    // The back-off is judged by the waits between the requests, which a slow machine can only
    // lengthen: each starts after the last request failed, 2 s then 4 s (a timer never fires early).
    const [first, second, third] = csrPosts().map((r) => r.atMs);
    expect(csrPosts().length).toBe(servingCsrs());
    expect(second! - first!).toBeGreaterThanOrEqual(2_000);
    expect(third! - second!).toBeGreaterThanOrEqual(4_000);
    expect(stderr).toContain('the issued serving certificate cannot be used: x509: certificate has expired or is not yet valid: current time');
    expect(existsSync(join(dir, 'pki', 'kubelet-server-current.pem'))).toBe(false);
  }, 90_000);
});
