/**
 * Certificate rotation through the real controller-manager's CSR approver and signer (the run's
 * control plane, ../shared/lab/kube v1.26). The lab's signer issues year-long certificates, so the
 * node starts from a short-lived client certificate the test signs with the lab's CA key itself,
 * laid out as Go's certificate store keeps one (kubelet-client-<time>.pem, kubelet-client-current.pem
 * naming it, --kubeconfig naming the link), with rotateCertificates on: the kubelet asks as
 * system:node:<name>, the approver's selfnodeclient rule approves, the signer issues, the link moves,
 * and the Lease and the Node's status keep being written past the old certificate's expiry.
 * serverTLSBootstrap: the v1.26 approver leaves a kubelet-serving CSR alone, as it does the Go
 * kubelet's; `kubectl certificate approve` does it, and the kubelet server then presents what the
 * signer issued, from the first connection after a restart too, with no new CSR. Embedded runtime:
 * what is tested is the certificates, not the pods' runtime.
 */
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approverCaughtUp } from '../support/approver-barrier.js';
import { kubeLab, kubeLabPart, labApi, type KubeLab } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { labClientCertificate, labKubeconfig, type LabClientCertificate } from '../support/lab-pki.js';
import { BUSYBOX, SLEEP, startLabNode, type Condition, type LabNode } from '../support/lab-node.js';
import { describeNeeding } from '../support/real-parts.js';

interface Csr {
  metadata: { name: string; creationTimestamp: string };
  spec: { username: string; signerName: string; usages: string[] };
  status?: { conditions?: Condition[]; certificate?: string };
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
/** How long the first client certificate lives after the node starts, and how far back it was issued. */
const LIFETIME_MS = 40_000;
const BACKDATED_MS = 60_000;

/** The go-style store layout: the pair in kubelet-client-<time>.pem, kubelet-client-current.pem naming it. */
function writeClientPair(pki: string, certificatePem: string, keyPem: string): string {
  const file = 'kubelet-client-2000-01-01-00-00-00.pem';
  mkdirSync(pki, { recursive: true });
  writeFileSync(join(pki, file), certificatePem + keyPem, { mode: 0o600 });
  symlinkSync(file, join(pki, 'kubelet-client-current.pem'));
  return join(pki, 'kubelet-client-current.pem');
}

/** A client certificate for system:node:<node> signed by the lab's CA key, expiring LIFETIME_MS from now. */
async function shortLivedNodeCertificate(lab: KubeLab, node: string): Promise<LabClientCertificate & { notAfterMs: number }> {
  const now = Date.now();
  // Backdated, so the rotation deadline (70–90 % of the validity, counted from notBefore) falls
  // 10–30 s from now, before the expiry.
  const notAfter = new Date(Math.floor((now + LIFETIME_MS) / 1000) * 1000);
  const pair = await labClientCertificate(lab, { user: `system:node:${node}`, groups: ['system:nodes'] }, { notBefore: new Date(now - BACKDATED_MS), notAfter });
  return { ...pair, notAfterMs: notAfter.getTime() };
}

const peer = (port: number) => new Promise<TLSSocket>((resolveSocket, reject) => {
  const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolveSocket(socket));
  socket.once('error', reject);
});

describeNeeding(kubeLabPart(), 'certificate rotation through the real approver and signer', () => {
  const name = 'kts-cert-rotation';
  let n: LabNode;
  let first: { certificatePem: string; keyPem: string; notAfterMs: number };
  let current: string;
  const csrs = async (signer: string) => (await n.get<{ items: Csr[] }>(CSRS)).items
    .filter((c) => c.spec.username === `system:node:${name}` && c.spec.signerName === signer);

  // The run's control plane first, in a hook of its own: the first file to ask brings it up, which
  // on a loaded machine took longer than this file's own start-up is given.
  let lab: KubeLab;
  beforeAll(async () => {
    lab = await kubeLab();
  }, 300_000);

  beforeAll(async () => {
    first = await shortLivedNodeCertificate(lab, name);
    n = await startLabNode({
      name, endpoint: 'embedded',
      // Status posted every 5 s, the Lease renewed every 5 s: both seen soon after the old certificate expires.
      extraConfig: () => ['rotateCertificates: true', 'serverTLSBootstrap: true', 'nodeStatusUpdateFrequency: 5s', 'nodeLeaseDurationSeconds: 20'],
      prepare: (dir) => {
        current = writeClientPair(join(dir, 'pki'), first.certificatePem, first.keyPem);
        writeFileSync(join(dir, 'node.kubeconfig'), labKubeconfig(lab, current, current));
      },
    });
  }, 120_000);

  afterAll(async () => {
    if (!n) return;
    await n.dispose();
    for (const c of [...await csrs('kubernetes.io/kube-apiserver-client-kubelet'), ...await csrs('kubernetes.io/kubelet-serving')]) {
      await labApi(n.lab, 'DELETE', `${CSRS}/${c.metadata.name}`);
    }
  }, 90_000);

  it('serverTLSBootstrap: its kubelet-serving CSR waits for an approver; approved with kubectl, the server presents the issued certificate', async () => {
    const pending = await n.whileUp('the serving CSR', async () => (await csrs('kubernetes.io/kubelet-serving'))[0], 60_000);
    expect(pending.spec.usages).toEqual(['digital signature', 'server auth']);
    // The v1.26 approver recognises no kubelet-serving request: still pending once it has taken it up.
    await approverCaughtUp(n.lab);
    expect((await n.get<Csr>(`${CSRS}/${pending.metadata.name}`)).status?.conditions ?? []).toEqual([]);
    const before = await n.whileUp('the kubelet server answering TLS', () => peer(n.port).catch(() => undefined), 30_000);
    expect(before.getPeerCertificate().issuer?.CN).toMatch(new RegExp(`^${name}-ca@\\d+$`));
    const selfSigned = before.getPeerCertificate().fingerprint256;

    const approved = await runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['certificate', 'approve', pending.metadata.name]);
    expect(approved.stderr).toBe('');
    const issued = await n.whileUp('the serving certificate issued', async () => (await n.get<Csr>(`${CSRS}/${pending.metadata.name}`)).status?.certificate, 30_000);
    const issuedCert = new X509Certificate(Buffer.from(issued, 'base64'));
    expect(issuedCert.verify(new X509Certificate(readFileSync(n.lab.ca)).publicKey)).toBe(true);

    const presented = await n.whileUp('a new connection with the issued certificate', async () => {
      const s = await peer(n.port).catch(() => null);
      const fingerprint = s?.getPeerCertificate().fingerprint256;
      s?.destroy();
      return fingerprint === issuedCert.fingerprint256 && fingerprint;
    }, 30_000);
    expect(presented).toBe(issuedCert.fingerprint256);
    expect(issuedCert.subject).toBe(`O=system:nodes\nCN=system:node:${name}`);
    expect(issuedCert.subjectAltName).toContain(`DNS:${name}`);
    expect(new X509Certificate(readFileSync(join(n.dir, 'pki', 'kubelet-server-current.pem'))).fingerprint256).toBe(issuedCert.fingerprint256);

    // Swapped in place: the connection opened before keeps its certificate and still carries requests.
    expect(before.getPeerCertificate().fingerprint256).toBe(selfSigned);
    const answer = await new Promise<string>((resolveAnswer) => {
      let text = '';
      before.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('\r\n\r\n')) resolveAnswer(text);
      });
      before.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    before.destroy();
    // Anonymous requests are refused (authentication.anonymous off): an answer all the same.
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  }, 120_000);

  it('renews its short-lived client certificate as system:node:<name>, AutoApproved and issued, and keeps its Lease and status past the old expiry', async () => {
    const firstTarget = readlinkSync(current);
    await n.createPod('through-rotation', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    await n.whileUp('the pod Running', async () => (await n.pod('through-rotation'))?.status?.phase === 'Running', 60_000);

    const csr = await n.whileUp('the renewal issued', async () =>
      (await csrs('kubernetes.io/kube-apiserver-client-kubelet')).find((c) => c.status?.certificate), Math.max(10_000, first.notAfterMs - Date.now()));
    expect(csr.metadata.name).toMatch(/^csr-/);
    expect(csr.spec.usages).toEqual(['digital signature', 'client auth']);
    // The controller-manager's selfnodeclient rule, not a test's approval.
    expect(csr.status?.conditions).toEqual([expect.objectContaining({
      type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    })]);
    const issued = new X509Certificate(Buffer.from(csr.status!.certificate!, 'base64'));
    expect(issued.subject).toBe(`O=system:nodes\nCN=system:node:${name}`);
    expect(Date.parse(issued.validTo)).toBeGreaterThan(first.notAfterMs + 24 * 3600_000);

    // The store's link moves to the new pair; --kubeconfig keeps naming the link.
    const written = await n.whileUp('kubelet-client-current.pem on the new certificate', () => {
      const target = readlinkSync(current);
      return target !== firstTarget && new X509Certificate(readFileSync(current)).fingerprint256 === issued.fingerprint256 && target;
    }, 10_000);
    expect(written).toMatch(/^(.*\/)?kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    expect(readFileSync(join(n.dir, 'node.kubeconfig'), 'utf8')).toContain(`client-certificate: "${current}"`);

    // Past the old certificate's expiry, the API server takes only the new one: the Lease and the
    // Node's status keep being written.
    const after = first.notAfterMs + 1000;
    await n.whileUp('a Lease renewal after the old certificate expired', async () =>
      Date.parse((await n.get<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`)).spec?.renewTime ?? '') > after,
    Math.max(0, after - Date.now()) + 20_000);
    await n.whileUp('a Node status heartbeat after the old certificate expired', async () => {
      const ready = (await n.get<{ status?: { conditions?: (Condition & { lastHeartbeatTime?: string })[] } }>(`/api/v1/nodes/${name}`)).status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' && Date.parse(ready.lastHeartbeatTime ?? '') > after;
    }, 20_000);
    expect(await csrs('kubernetes.io/kube-apiserver-client-kubelet')).toHaveLength(1);
    // A heartbeat that timed out on a loaded machine (connections closed and opened again) is no
    // rotation failure: a refused certificate shows as Unauthorized.
    expect(n.kubelet().stderr()).not.toMatch(/Could not rotate the client certificate|Unauthorized/);
    const pod = await n.pod('through-rotation');
    expect([pod?.status?.phase, pod?.status?.containerStatuses?.[0]?.restartCount]).toEqual(['Running', 0]);
  }, 120_000);

  it('restarted, it serves the kept serving certificate from its first connection and asks for neither certificate again', async () => {
    const pki = join(n.dir, 'pki');
    const links = () => [readlinkSync(current), readlinkSync(join(pki, 'kubelet-server-current.pem'))];
    const before = links();
    const count = async () => (await csrs('kubernetes.io/kube-apiserver-client-kubelet')).length + (await csrs('kubernetes.io/kubelet-serving')).length;
    const asked = await count();
    const stoppedAt = Date.now();
    await n.restart();
    const first = await n.whileUp('the kubelet server answering TLS after the restart', () => peer(n.port).catch(() => undefined), 60_000);
    const fingerprint = first.getPeerCertificate().fingerprint256;
    first.destroy();
    expect(fingerprint).toBe(new X509Certificate(readFileSync(join(pki, 'kubelet-server-current.pem'))).fingerprint256);
    await n.whileUp('a Lease renewal after the restart', async () =>
      Date.parse((await n.get<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`)).spec?.renewTime ?? '') > stoppedAt, 30_000);
    expect(links()).toEqual(before);
    expect(await count()).toBe(asked);
  }, 90_000);
});
