/**
 * TLS bootstrap refused or delayed, on the real control plane (the run's lab, v1.26): what the
 * controller-manager's approver leaves to someone else. Joining with a bootstrap token, auto-approved,
 * and the restart that reuses the certificate are in real-control-plane.e2e.test.ts.
 * Every bootstrap token is in system:bootstrappers, whose CSRs the lab auto-approves (kubeadm's
 * nodeclient binding), so here the bootstrap kubeconfig holds a client certificate for a joiner
 * whose group may create CSRs (system:node-bootstrapper) and nothing more: the approver's
 * SubjectAccessReview says no, the CSR stays pending, and the test denies or approves it with kubectl.
 * A denied CSR stops start-up in run.bootstrap naming it; a pending one keeps the phase waiting, its
 * reason in the log, until it is approved. Embedded runtime: no pod runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { approverCaughtUp } from '../support/approver-barrier.js';
import { spawnClusterKubelet, stopClusterKubelet, type ClusterKubelet } from '../support/cluster-kubelet.js';
import { freePort, until } from '../support/daemon.js';
import { kubeLab, kubeLabPart, labApi, type KubeLab } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { labClientCertificate, labKubeconfig } from '../support/lab-pki.js';
import { describeNeeding } from '../support/real-parts.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const JOINER = 'kts-joiner';
const JOINERS = 'kts:joiners';
const BINDING = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

interface Csr { metadata: { name: string }; spec: { username: string; groups: string[]; signerName: string }; status?: { conditions?: { type: string; status: string; reason?: string }[] } }
interface Node { status?: { conditions?: { type: string; status: string }[] } }

describeNeeding(kubeLabPart(), 'TLS bootstrap refused or delayed, on the real control plane', () => {
  let lab: KubeLab;
  let dir: string;
  const kubelets: ClusterKubelet[] = [];
  const nodes: string[] = [];

  beforeAll(async () => {
    lab = await kubeLab();
    dir = mkdtempSync(join(tmpdir(), 'kts-bootstrap-'));
    const { status, body } = await labApi(lab, 'POST', BINDING, {
      metadata: { name: 'kts-joiners-bootstrap' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: JOINERS }],
    });
    if (status !== 201) throw new Error(`the joiners' ClusterRoleBinding: ${status} ${JSON.stringify(body)}`);
    const now = Date.now();
    const joiner = await labClientCertificate(lab, { user: JOINER, groups: [JOINERS] }, { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
    writeFileSync(join(dir, 'joiner.crt'), joiner.certificatePem);
    writeFileSync(join(dir, 'joiner.key'), joiner.keyPem, { mode: 0o600 });
    writeFileSync(join(dir, 'bootstrap.kubeconfig'), labKubeconfig(lab, join(dir, 'joiner.crt'), join(dir, 'joiner.key')));
  }, 300_000);

  afterAll(async () => {
    for (const k of kubelets) await stopClusterKubelet(k);
    if (lab) {
      for (const node of nodes) await labApi(lab, 'DELETE', `/api/v1/nodes/${node}`);
      for (const c of await joinerCsrs()) await labApi(lab, 'DELETE', `${CSRS}/${c.metadata.name}`);
      await labApi(lab, 'DELETE', `${BINDING}/kts-joiners-bootstrap`);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const joinerCsrs = async () => (await labApi<{ items: Csr[] }>(lab, 'GET', CSRS)).body.items.filter((c) => c.spec.username === JOINER);
  /** A kubelet with only the joiner's bootstrap kubeconfig, its files in a directory of its own. */
  const start = async (node: string) => {
    const own = mkdtempSync(join(dir, `${node}-`));
    nodes.push(node);
    const k = spawnClusterKubelet({
      dir: own, endpoint: 'embedded', node, port: await freePort(), clientCa: lab.ca,
      kubeconfigArgs: [`--bootstrap-kubeconfig=${join(dir, 'bootstrap.kubeconfig')}`, `--kubeconfig=${join(own, 'kubelet.kubeconfig')}`],
    });
    kubelets.push(k);
    return k;
  };
  /** The pending CSR the kubelet names in its log, as the API server has it. */
  const pendingCsr = async (k: ClusterKubelet): Promise<Csr> => {
    const name = await until('the waiting reason in the log', () =>
      /"phase":"run\.bootstrap","reason":"certificate signing request (node-csr-[\w-]+) is pending approval"/.exec(k.stderr())?.[1], 30_000, k.stderr);
    const { status, body } = await labApi<Csr>(lab, 'GET', `${CSRS}/${name}`);
    expect(status).toBe(200);
    return body;
  };

  it('a denied CSR stops start-up in run.bootstrap, naming the CSR and the reason', async () => {
    const k = await start('kts-boot-denied');
    const csr = await pendingCsr(k);
    expect(csr.spec).toMatchObject({ username: JOINER, signerName: 'kubernetes.io/kube-apiserver-client-kubelet' });
    expect(csr.spec.groups).toContain(JOINERS);
    // Not the approver's: a CSR it turned down would be Denied already, one it took Approved.
    expect(csr.status?.conditions ?? []).toEqual([]);

    const denied = await runKubectl(lab.kubectl, lab.adminKubeconfig, ['certificate', 'deny', csr.metadata.name]);
    expect(denied.stderr).toBe('');
    // Not a sleep: the kubelet's exit ends the race at once; 30 s only bounds a kubelet that never notices the denial.
    const code = await Promise.race([k.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000))]);
    expect(code).not.toBe('running');
    expect(code).not.toBe(0);
    expect(k.stderr()).toContain('run.bootstrap');
    expect(k.stderr()).toContain(`certificate signing request ${csr.metadata.name} is denied, reason: KubectlDeny, message: This CSR was denied by kubectl certificate deny.`);
  }, 90_000);

  it('a CSR nobody approves keeps run.bootstrap waiting with its reason, until it is approved', async () => {
    const node = 'kts-boot-pending';
    const k = await start(node);
    const csr = await pendingCsr(k);
    // Still pending, the node not registered, once the approver has taken the request up.
    await approverCaughtUp(lab);
    expect((await labApi<Csr>(lab, 'GET', `${CSRS}/${csr.metadata.name}`)).body.status?.conditions ?? []).toEqual([]);
    expect((await labApi(lab, 'GET', `/api/v1/nodes/${node}`)).status).toBe(404);
    expect(k.child.exitCode).toBeNull();

    const approved = await runKubectl(lab.kubectl, lab.adminKubeconfig, ['certificate', 'approve', csr.metadata.name]);
    expect(approved.stderr).toBe('');
    await until('the node Ready after approval', async () => {
      const { status, body } = await labApi<Node>(lab, 'GET', `/api/v1/nodes/${node}`);
      return status === 200 && body.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    }, 60_000, k.stderr);
    expect((await labApi<Csr>(lab, 'GET', `${CSRS}/${csr.metadata.name}`)).body.status?.conditions).toEqual([
      expect.objectContaining({ type: 'Approved', status: 'True', reason: 'KubectlApprove' }),
    ]);
  }, 120_000);
});
