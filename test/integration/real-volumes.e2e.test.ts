/**
 * Volumes on the real control plane (kube-lab.ts), on the embedded runtime and on containerd
 * (KUBELET_IT_CRI). The ServiceAccount admission plugin adds its kube-api-access
 * volume to the pod, and the kubelet fills it and a projected serviceAccountToken through
 * TokenRequest: the real API server's TokenReview accepts the token the container sees, bound to the
 * pod. A ConfigMap and a Secret updated in the API show up in the mounted files. kubectl through the
 * API server's proxy to the kubelet (logs, exec, attach, port-forward) is kubectl-logs.e2e.test.ts's
 * and kubectl-exec.e2e.test.ts's.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Prints the token's digest and the service-account files once, then each volume file whenever it changes. */
const WATCHER = [
  `echo "TOKEN $(sha256sum /proj/token | cut -d" " -f1)"`,
  `echo "SA $(cat ${SA_DIR}/namespace) $(head -c 27 ${SA_DIR}/ca.crt) $(wc -c < ${SA_DIR}/token)"`,
  'last=""',
  'while :; do',
  '  now="CM $(cat /cm/greeting) SECRET $(cat /sec/password)"',
  '  if [ "$now" != "$last" ]; then echo "$now"; last=$now; fi',
  '  sleep 0.2 & wait $!',
  'done',
].join('\n');

for (const rt of RUNTIMES) describeNeeding(rt.endpoint === 'embedded' ? kubeLabPart() : allOf(kubeLabPart(), containerdPart()), `volumes on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns: string;
  let uid = '';
  /** What the container wrote, from its CRI log files. */
  const output = () => {
    const base = join(n.dir, 'logs', `${ns}_vols_${uid}`, 'main');
    if (!existsSync(base)) return '';
    return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('').split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
  };

  beforeAll(async () => {
    // The pod resync sets API content up again: short, so an update shows within the test.
    n = await startLabNode({ name: `kts-vk-${rt.name}`, endpoint: rt.endpoint, extraConfig: () => ['syncFrequency: 2s'] });
    ns = n.ns;
    await n.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings' }, data: { greeting: 'hello' } });
    await n.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'creds' }, stringData: { password: 'first' } });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('mounts the ServiceAccount admission\'s token volume and a projected token the real TokenReview accepts, bound to the pod', async () => {
    const created = await n.createPod('vols', {
      containers: [{
        name: 'main', image: BUSYBOX, command: ['sh', '-c', WATCHER],
        volumeMounts: [{ name: 'proj', mountPath: '/proj', readOnly: true }, { name: 'cm', mountPath: '/cm' }, { name: 'sec', mountPath: '/sec' }],
      }],
      volumes: [
        { name: 'proj', projected: { sources: [{ serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } }] } },
        { name: 'cm', configMap: { name: 'settings' } },
        { name: 'sec', secret: { secretName: 'creds' } },
      ],
    });
    uid = created.metadata.uid;
    // The admission plugin's doing, not the test's: the default ServiceAccount and its token volume.
    expect(created.spec.serviceAccountName).toBe('default');
    const volumes = created.spec.volumes as { name: string }[];
    expect(volumes.map((v) => v.name)).toEqual(['proj', 'cm', 'sec', expect.stringMatching(/^kube-api-access-[a-z0-9]{5}$/)]);

    const out = await n.whileUp('the container to print its volumes', () => (output().includes('CM hello SECRET first') ? output() : undefined), 60_000);
    const tokenFile = join(n.dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~projected', 'proj', 'token');
    const token = readFileSync(tokenFile, 'utf8');
    expect(out).toContain(`TOKEN ${createHash('sha256').update(token).digest('hex')}`);
    expect(out).toMatch(new RegExp(`^SA ${ns} -----BEGIN CERTIFICATE----- \\d{3,}$`, 'm'));

    type Review = { status: { authenticated?: boolean; audiences?: string[]; error?: string; user?: { username?: string; extra?: Record<string, string[]> } } };
    const review = async (audiences: string[]) => (await n.create<Review>('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token, audiences } })).status;
    const accepted = await review(['vault']);
    expect(accepted).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: `system:serviceaccount:${ns}:default` } });
    expect(accepted.user?.extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['vols'], 'authentication.kubernetes.io/pod-uid': [uid] });
    // Bound to its audience: the API server's own refuses it.
    expect((await review(['https://kubernetes.default.svc'])).authenticated).toBeFalsy();
  }, 90_000);

  it('shows a ConfigMap and a Secret updated in the API in the mounted files', async () => {
    const put = async (path: string, change: (o: Record<string, unknown>) => Record<string, unknown>) => {
      const current = await n.get<Record<string, unknown>>(path);
      const res = await labApi(n.lab, 'PUT', path, change(current));
      expect(res.status).toBe(200);
    };
    await put(`/api/v1/namespaces/${ns}/configmaps/settings`, (o) => ({ ...o, data: { greeting: 'hello again' } }));
    await put(`/api/v1/namespaces/${ns}/secrets/creds`, (o) => ({ ...o, data: { password: Buffer.from('second').toString('base64') } }));
    await n.whileUp('the container to see both updates', () => output().includes('CM hello again SECRET second'), 60_000);
  }, 90_000);
});
