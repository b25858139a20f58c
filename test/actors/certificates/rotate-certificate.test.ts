/**
 * The certificate managers' rotation effect against the test API server's signer: a certificate it
 * issues that is expired by the node's clock is a failed renewal with Go's x509 words, never stored
 * nor put to use; the same signer's certificate on a clock that agrees is stored and installed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { rotateCertificateActor } from '../../../src/actors/certificates/rotate-certificate.js';
import { createCertificateRenewal } from '../../../src/adapters/certificates/renewal.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { CertificateRotation } from '../../../src/machines/certificate-manager.machine.js';
import type { Clock } from '../../../src/ports/clock.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';

const HOUR = 3600_000;
let api: TestApiServer;
let dir: string;
let kubeconfigPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'klt-rotate-'));
  api = await startTestApiServer({ tls: true });
  const client = await api.issueClientCertificate('system:node:n1', ['system:nodes']);
  kubeconfigPath = api.kubeconfigPath(dir, { clientCertificate: client });
  api.csr!.policy.validitySeconds = 3600;
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rotate(kind: 'client' | 'serving', clock: Clock, certDir: string): Promise<{ answer: CertificateRotation; installed: number }> {
  let installed = 0;
  const effect = rotateCertificateActor({
    kind, settings: () => ({ kubeconfigPath, certDir }), install: () => { installed++; },
    io: createCertificateRenewal({ clock, userAgent: 'kubelet-ts-test' }), clock, random: { next: () => 0.5 }, logger: pino({ level: 'silent' }),
  });
  const actor = createActor(effect, { input: { nodeName: 'n1', servingNames: { dnsNames: ['n1'], ipAddresses: ['127.0.0.1'] }, attempt: 0 } });
  actor.start();
  return { answer: await toPromise(actor), installed };
}

describe.each(['client', 'serving'] as const)('the %s certificate rotation effect', (kind) => {
  const store = kind === 'client' ? 'kubelet-client-current.pem' : 'kubelet-server-current.pem';

  it('fails a renewal whose certificate has expired by the node\'s clock, storing and installing nothing', async () => {
    // The signer's certificates live an hour; the node's clock is two hours ahead.
    const ahead: Clock = { ...systemClock, now: () => Date.now() + 2 * HOUR };
    const certDir = join(dir, `${kind}-expired`);
    const { answer, installed } = await rotate(kind, ahead, certDir);
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error).toMatchObject({
      code: 'KLT_ERR_BOOTSTRAP',
      message: expect.stringMatching(new RegExp(`^the issued ${kind} certificate cannot be used: x509: certificate has expired or is not yet valid: current time \\S+Z is after \\S+Z$`)),
    });
    expect(installed).toBe(0);
    expect(existsSync(join(certDir, store))).toBe(false);
  });

  it('stores and installs a certificate valid now', async () => {
    const certDir = join(dir, `${kind}-valid`);
    const { answer, installed } = await rotate(kind, systemClock, certDir);
    expect(answer).toMatchObject({ ok: true });
    expect(installed).toBe(1);
    expect(existsSync(join(certDir, store))).toBe(true);
  });
});
