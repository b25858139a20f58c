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

  it('backs off instead of asking again at once: a few CSRs in 10 s, each failure said in Go\'s words', async () => {
    const client = await api.issueClientCertificate(`system:node:${node}`, ['system:nodes']);
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', `podLogsDir: ${join(dir, 'logs')}`,
      'containerRuntimeEndpoint: embedded', 'healthzPort: 0', 'address: 127.0.0.1', `port: ${await freePort()}`, 'serverTLSBootstrap: true', '',
    ].join('\n'));
    child = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`,
      `--kubeconfig=${api.kubeconfigPath(dir, { clientCertificate: client })}`, '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${node}`,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const servingCsrs = () => (api.store.list('certificatesigningrequests').items as { spec: { signerName: string } }[])
      .filter((c) => c.spec.signerName === 'kubernetes.io/kubelet-serving').length;
    await until('the first serving CSR', () => servingCsrs() > 0, 60_000, () => stderr);
    // The window the back-off is judged over: CSRs are counted after 10 s of it.
    await new Promise((r) => setTimeout(r, 10_000));
    // Back-off from the first failure: 2 s, 4 s, 8 s (a CSR at 0, 2, 6 and perhaps 14 s).
    expect(servingCsrs()).toBeLessThanOrEqual(4);
    expect(servingCsrs()).toBeGreaterThanOrEqual(2);
    expect(stderr).toContain('the issued serving certificate cannot be used: x509: certificate has expired or is not yet valid: current time');
    expect(existsSync(join(dir, 'pki', 'kubelet-server-current.pem'))).toBe(false);
  }, 90_000);
});
