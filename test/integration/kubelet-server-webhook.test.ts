/**
 * The kubelet server's Webhook authentication and authorization over real TLS sockets, the node on
 * the real control plane (kube-lab.ts, lab-node.ts): no credentials → 401; a client certificate
 * signed by clientCAFile (the lab's CA), its user and groups allowed or denied by the real API
 * server's SubjectAccessReview against RBAC the test creates; bearer tokens (a ServiceAccount's, from
 * the TokenRequest API) authenticated by its TokenReview, which refuses a token bound to another
 * audience. Paths map to node subresources as the Go kubelet maps them, the fine-grained one first
 * and then proxy. Embedded runtime: no pod runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpsGet } from '../support/daemon.js';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { startLabNode, type LabNode } from '../support/lab-node.js';
import { describeNeeding } from '../support/real-parts.js';

const NAME = 'kts-wh';
/** The group alice's certificate names (its O): the proxy role is bound to it, not to her. */
const DEVS = `${NAME}-devs`;

type Auth = { cert?: Buffer; key?: Buffer; token?: string };
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
type Subject = { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string; apiGroup?: string };

describeNeeding(kubeLabPart(), 'the kubelet server with Webhook authentication and authorization on the real control plane', () => {
  let n: LabNode;
  let certs: string;
  const roles: string[] = [];

  const get = (path: string, auth: Auth = {}) => httpsGet(n.port, path, auth);

  /** A client certificate for `cn` in group `o`, signed by the lab's CA. */
  const clientCert = (cn: string, o: string): Auth => {
    const pki = join(n.lab.dir, 'pki');
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: certs, stdio: 'ignore' });
    run('req', '-new', '-nodes', '-newkey', 'rsa:2048', '-keyout', `${cn}.key`, '-out', `${cn}.csr`, '-subj', `/O=${o}/CN=${cn}`);
    run('x509', '-req', '-in', `${cn}.csr`, '-CA', join(pki, 'ca.crt'), '-CAkey', join(pki, 'ca.key'), '-set_serial', `0x${Date.now().toString(16)}`,
      '-days', '1', '-extfile', join(pki, 'openssl.cnf'), '-extensions', 'v3_client', '-out', `${cn}.crt`);
    return { cert: readFileSync(join(certs, `${cn}.crt`)), key: readFileSync(join(certs, `${cn}.key`)) };
  };

  /** A ClusterRole with `rules` bound to `subjects`, both named `kts-wh-<name>`. */
  const grant = async (name: string, rules: Rule[], subjects: Subject[]) => {
    const full = `${NAME}-${name}`;
    roles.push(full);
    await n.create('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: full }, rules });
    await n.create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: full }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: full }, subjects,
    });
  };
  const nodesSub = (sub: string): Rule => ({ apiGroups: [''], resources: [`nodes/${sub}`], verbs: ['get'] });

  /**
   * Waits until the API server's RBAC allows `user` on nodes/<sub>: the kubelet keeps a denial for
   * 30 s (cacheUnauthorizedTTL), so it must not ask before the new binding is in effect. The review
   * names system:authenticated, as the kubelet's own does for an authenticated request: the lab's
   * API server (OpenShift's tree) refuses nodes/proxy to a user outside that group.
   */
  const untilAllowed = (user: string, groups: string[], sub: string) => n.whileUp(`RBAC to allow ${user} nodes/${sub}`, async () => {
    const res = await labApi<{ status: { allowed: boolean } }>(n.lab, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user, groups: [...groups, 'system:authenticated'], resourceAttributes: { verb: 'get', resource: 'nodes', subresource: sub, name: n.node } },
    });
    return res.body.status.allowed;
  }, 10_000);

  /** A token for the ServiceAccount from the TokenRequest API. */
  const token = async (sa: string, audiences?: string[]) => (await n.create<{ status: { token: string } }>(
    `/api/v1/namespaces/${n.ns}/serviceaccounts/${sa}/token`, { spec: { expirationSeconds: 600, ...(audiences ? { audiences } : {}) } },
  )).status.token;

  beforeAll(async () => {
    certs = mkdtempSync(join(tmpdir(), `${NAME}-certs-`));
    n = await startLabNode({ name: NAME, endpoint: 'embedded' });
    for (const sa of ['reader', 'nobody']) await n.create(`/api/v1/namespaces/${n.ns}/serviceaccounts`, { metadata: { name: sa } });
    await grant('proxy', [nodesSub('proxy')], [
      { kind: 'Group', name: DEVS, apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'reader', namespace: n.ns },
    ]);
    await grant('fine', [nodesSub('metrics'), nodesSub('configz')], [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }]);
    await untilAllowed('alice', [DEVS], 'proxy');
    await untilAllowed(`system:serviceaccount:${n.ns}:reader`, [], 'proxy');
    await untilAllowed('carol', [], 'configz');
    await n.whileUp('the kubelet server to listen', () => get('/healthz').then(() => true, () => false), 60_000);
  }, 120_000);

  afterAll(async () => {
    for (const role of roles) {
      await labApi(n.lab, 'DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}`);
      await labApi(n.lab, 'DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    }
    await n?.dispose();
    rmSync(certs, { recursive: true, force: true });
  }, 120_000);

  it('answers 401 without credentials (anonymous off)', async () => {
    expect((await get('/pods')).status).toBe(401);
  });

  it('lets in a client certificate signed by clientCAFile when RBAC allows its group nodes/proxy', async () => {
    const r = await get('/pods', clientCert('alice', DEVS));
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body).kind).toBe('PodList');
  });

  it('answers 403 for a valid certificate RBAC does not allow, naming the subresources tried', async () => {
    const r = await get('/pods', clientCert('bob', `${NAME}-others`));
    expect(r.status).toBe(403);
    expect(r.body).toContain('Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[pods proxy])');
  });

  it('authenticates a ServiceAccount\'s token by TokenReview and authorizes it by SubjectAccessReview', async () => {
    expect((await get('/pods', { token: await token('reader') })).status).toBe(200);
    const denied = await get('/pods', { token: await token('nobody') });
    expect(denied.status).toBe(403);
    expect(denied.body).toContain(`user=system:serviceaccount:${n.ns}:nobody`);
  });

  it('refuses a forged token and one bound to another audience (401)', async () => {
    expect((await get('/pods', { token: 'forged' })).status).toBe(401);
    expect((await get('/pods', { token: await token('reader', ['vault']) })).status).toBe(401);
  });

  it('maps paths to node subresources as the Go kubelet does: metrics and configz without proxy', async () => {
    const carol = clientCert('carol', `${NAME}-others`);
    expect((await get('/metrics', carol)).status).toBe(200);
    expect((await get('/configz', carol)).status).toBe(200);
    const pods = await get('/pods', carol);
    expect(pods.status).toBe(403);
    expect(pods.body).toContain('subresource(s)=[pods proxy]');
  });
});
