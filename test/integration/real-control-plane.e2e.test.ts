/**
 * kubelet-ts on the real control plane (../shared/lab/kube: kube-apiserver, kube-controller-manager,
 * kube-scheduler v1.26), on the embedded runtime and on containerd (KUBELET_IT_CRI). It joins as
 * `kubeadm join` has a node join: with only a bootstrap kubeconfig, its client CSR approved and
 * signed by the controller-manager. Then the scheduler is in the loop: a Deployment of 3, a DaemonSet
 * and a Job land on the node and run, the Job completes, a Deployment pod sees the master Service's
 * variables, and deleting the Deployment removes its pods from the API and from the runtime.
 * Restarted, the kubelet reuses its certificate. A CSR refused or left pending is in
 * tls-bootstrap.e2e.test.ts; renewals through the approver and signer in certificate-rotation.e2e.test.ts.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnClusterKubelet, stopClusterKubelet, type ClusterKubelet } from '../support/cluster-kubelet.js';
import { freePort, httpsGet, removePods, until } from '../support/daemon.js';
import { bootstrapKubeconfig, kubeLab, kubeLabPart, labApi, type KubeLab } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';
import {
  daemonSetPath, daemonSetReady, DELETE_IN_BACKGROUND, deploymentAvailable, deploymentPath, expectedPlacement, jobComplete, jobPath,
  placement, podsPath, SERVICE_ENV_LINE, serviceEnvLine, WEB_REPLICAS, workloadObjects, type WorkloadPod,
} from '../support/scheduled-workloads.js';

const IMAGE = 'kubelet-ts.local/busybox:1.0';
const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

interface Condition { type: string; status: string; reason?: string; message?: string }
interface Csr { metadata: { name: string }; spec: { username: string; groups: string[]; signerName: string; usages: string[] }; status?: { conditions?: Condition[]; certificate?: string } }

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `kubelet-ts on the real control plane, ${rt.name} runtime`, () => {
  const node = `kts-real-${rt.name}`;
  const ns = `kts-real-${rt.name}`;
  let lab: KubeLab;
  let dir: string;
  let port: number;
  let tokenId: string;
  let kubelet: ClusterKubelet | null = null;
  const stderr = () => kubelet?.stderr() ?? '';
  /** until(), cut short when the kubelet exits. */
  const whileUp = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms: number): Promise<T> => {
    const k = kubelet!;
    return Promise.race([
      until(what, probe, ms, k.stderr),
      k.exited.then((code) => { throw new Error(`the kubelet exited (${code}) while waiting for ${what}:\n${k.stderr().slice(-3000)}`); }),
    ]);
  };

  const get = async <T>(path: string): Promise<T> => {
    const { status, body } = await labApi<T>(lab, 'GET', path);
    if (status !== 200) throw new Error(`GET ${path}: ${status} ${JSON.stringify(body)}`);
    return body;
  };
  const create = async (path: string, object: unknown) => {
    const { status, body } = await labApi(lab, 'POST', path, object);
    if (status !== 201) throw new Error(`POST ${path}: ${status} ${JSON.stringify(body)}`);
  };
  const pods = async (app?: string) => (await get<{ items: WorkloadPod[] }>(podsPath(ns, app))).items;
  const myCsrs = async () =>
    (await get<{ items: Csr[] }>('/apis/certificates.k8s.io/v1/certificatesigningrequests')).items.filter((c) => c.spec.username === `system:bootstrap:${tokenId}`);
  const nodeReady = async () =>
    (await get<{ status?: { conditions?: Condition[] } }>(`/api/v1/nodes/${node}`)).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  /** The pods' names the runtime runs, from the kubelet's /runningpods/ (as the API server's own client). */
  const runtimePods = async () => {
    const pki = join(lab.dir, 'pki');
    const res = await httpsGet(port, '/runningpods/', { cert: readFileSync(join(pki, 'apiserver-kubelet-client.crt')), key: readFileSync(join(pki, 'apiserver-kubelet-client.key')) });
    if (res.status !== 200) throw new Error(`/runningpods/: ${res.status} ${res.body}`);
    return (JSON.parse(res.body) as { items: WorkloadPod[] }).items.map((p) => p.metadata.name);
  };
  const start = () => spawnClusterKubelet({
    dir, endpoint: rt.endpoint, node, port, clientCa: lab.ca,
    kubeconfigArgs: [`--bootstrap-kubeconfig=${join(dir, 'bootstrap.kubeconfig')}`, `--kubeconfig=${join(dir, 'kubelet.kubeconfig')}`],
    extraConfig: ['rotateCertificates: true'],
  });

  beforeAll(async () => {
    lab = await kubeLab();
    dir = mkdtempSync(join(tmpdir(), 'kts-real-cp-'));
    port = await freePort();
    const bootstrap = await bootstrapKubeconfig(lab);
    tokenId = bootstrap.tokenId;
    writeFileSync(join(dir, 'bootstrap.kubeconfig'), bootstrap.text);
    await create('/api/v1/namespaces', { metadata: { name: ns } });
  }, 300_000);

  afterAll(async () => {
    // Embedded-runtime containers outlive the kubelet: the pods go through the API while it runs.
    if (lab && kubelet) {
      await labApi(lab, 'DELETE', `/api/v1/namespaces/${ns}`);
      await until('every pod of the namespace gone', async () => (await pods()).length === 0, 60_000, stderr).catch((err: unknown) => console.error(err));
    }
    await stopClusterKubelet(kubelet);
    if (!dir) return;
    await removePods({ endpoint: rt.endpoint, rootDir: join(dir, 'root'), select: (name) => /^(web|agent|once)-/.test(name) });
    // A stopped kubelet's Node stays Ready for the node controller's grace period: gone, nothing more is put on it.
    if (lab) await labApi(lab, 'DELETE', `/api/v1/nodes/${node}`);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('joins with a bootstrap kubeconfig: its CSR Approved,Issued by the controller-manager, the node Ready', async () => {
    kubelet = start();
    await whileUp('the node Ready', nodeReady, 90_000);

    const csrs = await myCsrs();
    expect(csrs).toHaveLength(1);
    const csr = csrs[0]!;
    expect(csr.metadata.name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(csr.spec.signerName).toBe(CLIENT_SIGNER);
    expect(csr.spec.usages).toEqual(['digital signature', 'client auth']);
    expect(csr.spec.groups).toEqual(expect.arrayContaining(['system:bootstrappers', 'system:bootstrappers:kube-lab']));
    // The controller-manager's approver: its reason and message, not a test's.
    expect(csr.status?.conditions).toEqual([expect.objectContaining({
      type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
    })]);
    const issued = new X509Certificate(Buffer.from(csr.status!.certificate!, 'base64'));
    expect(issued.subject).toBe(`O=system:nodes\nCN=system:node:${node}`);
    expect(issued.verify(new X509Certificate(readFileSync(lab.ca)).publicKey)).toBe(true);
    const current = join(dir, 'pki', 'kubelet-client-current.pem');
    expect(new X509Certificate(readFileSync(current)).fingerprint256).toBe(issued.fingerprint256);
    // Go's store: the pair in kubelet-client-<time>.pem, the link naming it, --kubeconfig naming the link.
    expect(readlinkSync(current)).toMatch(/^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    expect(existsSync(join(dir, 'pki', 'kubelet-client.key.tmp'))).toBe(false);
    const kubeconfig = JSON.parse(readFileSync(join(dir, 'kubelet.kubeconfig'), 'utf8')) as { users: { user: Record<string, string> }[] };
    expect(kubeconfig.users[0]!.user).toEqual({ 'client-certificate': current, 'client-key': current });

    const shown = await runKubectl(lab.kubectl, lab.adminKubeconfig, ['get', 'csr', csr.metadata.name, '--no-headers']);
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toMatch(new RegExp(`^${csr.metadata.name}\\s.*\\sApproved,Issued\\s*$`));
  }, 120_000);

  it('runs what the scheduler puts on it: a Deployment of 3, a DaemonSet, a Job to completion', async () => {
    for (const { path, object } of workloadObjects(ns, IMAGE, node)) await create(path, object);

    await whileUp('the Deployment available with 3 replicas', async () => deploymentAvailable(await get(deploymentPath(ns))), 120_000);
    await whileUp('the DaemonSet ready on the node', async () => daemonSetReady(await get(daemonSetPath(ns))), 60_000);
    await whileUp('the Job complete', async () => jobComplete(await get(jobPath(ns))), 60_000);

    expect(placement(await pods())).toEqual(expectedPlacement(node));
  }, 300_000);

  it('a Deployment pod reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT', async () => {
    const pod = (await pods('web'))[0]!;
    const logDir = join(dir, 'logs', `${ns}_${pod.metadata.name}_${pod.metadata.uid}`, 'main');
    const line = await whileUp(`${pod.metadata.name}'s output`, () => {
      if (!existsSync(logDir)) return undefined;
      return serviceEnvLine(readdirSync(logDir).map((f) => readFileSync(join(logDir, f), 'utf8')).join(''));
    }, 10_000);
    expect(line).toBe(SERVICE_ENV_LINE);
  }, 30_000);

  it('deleting the Deployment removes its pods from the API and from the runtime', async () => {
    const names = (await pods('web')).map((p) => p.metadata.name);
    expect(names).toHaveLength(WEB_REPLICAS);
    expect((await runtimePods()).filter((n) => names.includes(n)).sort()).toEqual([...names].sort());

    const { status } = await labApi(lab, 'DELETE', deploymentPath(ns), DELETE_IN_BACKGROUND);
    expect(status).toBe(200);
    await whileUp('the Deployment\'s pods gone from the API', async () => (await pods('web')).length === 0, 90_000);
    await whileUp('the Deployment\'s pods gone from the runtime', async () => !(await runtimePods()).some((n) => names.includes(n)), 30_000);
    expect((await pods('agent')).map((p) => p.status?.phase)).toEqual(['Running']);
  }, 150_000);

  it('restarted, it reuses its certificate: no second CSR, the node Ready again', async () => {
    const current = join(dir, 'pki', 'kubelet-client-current.pem');
    const certificate = readlinkSync(current);
    await stopClusterKubelet(kubelet);
    const stoppedAt = Date.now();
    kubelet = start();
    await whileUp('a Lease renewal after the restart', async () =>
      Date.parse((await get<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${node}`)).spec?.renewTime ?? '') > stoppedAt, 60_000);
    await whileUp('the node Ready', nodeReady, 60_000);
    expect(await myCsrs()).toHaveLength(1);
    const others = (await get<{ items: Csr[] }>('/apis/certificates.k8s.io/v1/certificatesigningrequests')).items.filter((c) => c.spec.username === `system:node:${node}`);
    expect(others).toEqual([]);
    expect(readlinkSync(current)).toBe(certificate);
    expect(stderr()).not.toContain('Using the bootstrap kubeconfig');
  }, 120_000);
});
