/**
 * Volumes end to end in cluster mode on the real control plane (kube-lab.ts), on the embedded
 * runtime and on containerd (KUBELET_IT_CRI; in CI it must run): one pod using every plugin
 * (configMap with items and a mode, secret, downwardAPI, projected with a bound service-account
 * token, the namespace's kube-root-ca.crt and the downward API, emptyDir on disk and in memory,
 * hostPath DirectoryOrCreate, a subPath), plus the kube-api-access volume the ServiceAccount
 * admission adds. From inside the container each file has its content and mode; the token comes
 * from the real TokenRequest API and the real TokenReview accepts it for its audience, bound to the
 * pod; the CA is the one the controller-manager's root CA publisher put in kube-root-ca.crt. A
 * ConfigMap and a Secret updated in the API reach the mounted files while a reader in the container
 * loops over them and never sees a partial file; neither the secret nor a token reaches the kubelet's
 * log, its journal, /pods or /debug/actors. A pod whose ConfigMap is missing waits with FailedMount
 * events; a missing key is CreateContainerConfigError; termination messages come back; deleting the
 * pod unmounts everything and removes its directory; a restart cleans up what a previous run left.
 * /stats/summary lists every volume but the hostPath with its figures.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const SECRET_VALUE = 's3cr3t-value-that-must-not-leak';
const SECRET_UPDATED = 'an0ther-s3cr3t-that-must-not-leak';
const SIZE = 64 * 1024;
const big = (ch: string) => ch.repeat(SIZE);
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** A resync every 2 s, and volume stats measured as often. */
const RESYNC = ['syncFrequency: 2s', 'volumeStatsAggPeriod: 2s'];

/** Prints every file with its mode, then reads the big ConfigMap key and the Secret in a loop, reporting torn reads and changes. */
const SCRIPT = [
  'show() { echo "FILE $1 $(stat -L -c %a "$1") $(cat "$1" | head -c 200 | tr "\\n" "|")"; }',
  'show /srv/v/cm/greeting; show /srv/v/dapi/name; show /srv/v/dapi/labels; show /srv/v/dapi/mem',
  'show /srv/v/proj/namespace; show /srv/v/proj/ca.crt; echo "TOKEN $(sha256sum /srv/v/proj/token | cut -d" " -f1)"',
  `echo "SA $(cat ${SA_DIR}/namespace) $(sha256sum ${SA_DIR}/ca.crt | cut -d" " -f1) $(sha256sum ${SA_DIR}/token | cut -d" " -f1)"`,
  'echo hello > /srv/v/scratch/f && show /srv/v/scratch/f; echo mem > /srv/v/mem/f && show /srv/v/mem/f; echo host > /srv/v/host/f && show /srv/v/host/f',
  'show /srv/v/sub/inner',
  'echo "HOSTS $(grep -c "Entries added by HostAliases" /etc/hosts 2>/dev/null) $(grep -c "kts-alias" /etc/hosts 2>/dev/null)"',
  'echo READY',
  'last=""; lastp=""',
  'while :; do',
  '  v=$(cat /srv/v/cm/big); c=$(printf %s "$v" | head -c 1)',
  '  case "$v" in *A*B*|*B*A*) echo TORN;; esac',
  `  if [ "\${#v}" != ${SIZE} ]; then echo "SHORT \${#v}"; fi`,
  '  if [ "$c" != "$last" ]; then echo "SEEN $c"; last=$c; fi',
  '  p=$(stat -L -c %a /srv/v/sec/password) && p="$p $(cat /srv/v/sec/password)"',
  '  if [ "$p" != "$lastp" ]; then echo "SECRET $p"; lastp=$p; fi',
  // The container's reading pace, not a wait of the test's: it only sets how soon a change is seen.
  '  sleep 0.05',
  'done',
].join('\n');

function podSpec(hostDir: string) {
  return {
    serviceAccountName: 'default',
    hostAliases: [{ ip: '10.9.8.7', hostnames: ['kts-alias'] }],
    containers: [{
      name: 'main', image: BUSYBOX, command: ['sh', '-c', SCRIPT],
      resources: { limits: { memory: '64Mi' } },
      volumeMounts: [
        { name: 'cm', mountPath: '/srv/v/cm', readOnly: true },
        { name: 'sec', mountPath: '/srv/v/sec', readOnly: true },
        { name: 'dapi', mountPath: '/srv/v/dapi' },
        { name: 'proj', mountPath: '/srv/v/proj', readOnly: true },
        { name: 'scratch', mountPath: '/srv/v/scratch' },
        { name: 'mem', mountPath: '/srv/v/mem' },
        { name: 'host', mountPath: '/srv/v/host' },
        { name: 'scratch', mountPath: '/srv/v/sub', subPath: 'nested' },
      ],
    }],
    initContainers: [{
      name: 'prepare', image: BUSYBOX, command: ['sh', '-c', 'mkdir -p /s/nested && echo inner > /s/nested/inner'],
      volumeMounts: [{ name: 'scratch', mountPath: '/s' }],
    }],
    volumes: [
      { name: 'cm', configMap: { name: 'settings', defaultMode: 0o440, items: [{ key: 'greeting', path: 'greeting' }, { key: 'big', path: 'big', mode: 0o444 }] } },
      { name: 'sec', secret: { secretName: 'creds' } },
      { name: 'dapi', downwardAPI: { items: [
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: 'mem', resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' } },
      ] } },
      { name: 'proj', projected: { sources: [
        { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
      ] } },
      { name: 'scratch', emptyDir: {} },
      { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
      { name: 'host', hostPath: { path: hostDir, type: 'DirectoryOrCreate' } },
    ],
  };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `volumes on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let ns = '';
  let uid = '';
  const projected = () => join(n.dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~projected');
  /** The bound token of `proj`, and the kube-api-access volume's. */
  const tokens = () => [readFileSync(join(projected(), 'proj', 'token'), 'utf8'), readFileSync(join(projected(), kubeApiAccess(), 'token'), 'utf8')];
  const kubeApiAccess = () => readdirSync(projected()).find((v) => v.startsWith('kube-api-access-'))!;
  /** What the container wrote, from its CRI log files. */
  const log = () => {
    const base = join(n.dir, 'logs', `${ns}_vols_${uid}`, 'main');
    if (!existsSync(base)) return '';
    return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('').split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
  };
  const put = async (path: string, change: (o: Record<string, unknown>) => Record<string, unknown>) => {
    const res = await labApi(n.lab, 'PUT', path, change(await n.get<Record<string, unknown>>(path)));
    expect(res.status).toBe(200);
  };
  const forceDelete = async (name: string) => {
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, { gracePeriodSeconds: 0 })).status).toBe(200);
  };

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-vol-${rt.name}`, endpoint: rt.endpoint, debug: true, extraConfig: () => RESYNC });
    ns = n.ns;
    await n.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'settings' }, data: { greeting: 'hello volumes', big: big('A') } });
    await n.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'creds' }, data: { password: Buffer.from(SECRET_VALUE).toString('base64') } });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('runs a pod with every plugin: contents and modes as mounted, the admission\'s token volume, the published root CA', async () => {
    const hostDir = join(n.dir, 'host-path');
    const created = await n.create<LabPod>(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: 'vols', labels: { app: 'vols', tier: 'e2e' } },
      spec: { nodeName: n.node, terminationGracePeriodSeconds: 1, ...podSpec(hostDir) },
    });
    uid = created.metadata.uid;
    // The ServiceAccount admission's doing, not the test's: its token volume, mounted where client-go looks.
    expect((created.spec.volumes as { name: string }[]).map((v) => v.name).at(-1)).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    const pod = await n.whileUp('the pod Running', async () => {
      const p = await n.pod('vols');
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 90_000);
    // The secret is read in the loop that follows READY.
    const out = await n.whileUp('the container to list its files and read the secret', () => (/^READY$[^]*^SECRET /m.test(log()) ? log() : undefined), 30_000);

    expect(out).toContain('FILE /srv/v/cm/greeting 440 hello volumes');
    expect(out).toContain(`SECRET 644 ${SECRET_VALUE}`);
    expect(out).toContain('FILE /srv/v/dapi/name 644 vols');
    expect(out).toContain('FILE /srv/v/dapi/labels 644 app="vols"|tier="e2e"');
    expect(out).toContain('FILE /srv/v/dapi/mem 644 64');
    expect(out).toContain(`FILE /srv/v/proj/namespace 644 ${ns}`);
    expect(out).toContain('FILE /srv/v/proj/ca.crt 644 -----BEGIN CERTIFICATE-----');
    expect(out).toContain('FILE /srv/v/scratch/f 644 hello');
    expect(out).toContain('FILE /srv/v/mem/f 644 mem');
    expect(out).toContain('FILE /srv/v/host/f 644 host');
    expect(out).toContain('FILE /srv/v/sub/inner 644 inner');
    // The kubelet-managed /etc/hosts, with the host aliases, wherever Go mounts one: a pod with an IP.
    // The embedded runtime always reports one (the host's address).
    if (rt.name === 'embedded') expect(pod.status?.podIP).toBeTruthy();
    if (pod.status?.podIP) expect(out).toContain('HOSTS 1 1');

    // The CA both volumes carry is the one the controller-manager published for the namespace.
    const rootCa = (await n.get<{ data: Record<string, string> }>(`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).data['ca.crt']!;
    expect(rootCa).toBe(readFileSync(n.lab.ca, 'utf8'));
    expect(readFileSync(join(projected(), 'proj', 'ca.crt'), 'utf8')).toBe(rootCa);
    const [token, saToken] = tokens();
    expect(out).toContain(`TOKEN ${sha256(token!)}`);
    expect(out).toContain(`SA ${ns} ${sha256(rootCa)} ${sha256(saToken!)}`);

    // Secret and projected content live on a tmpfs, never on the node's disk; the hostPath was made.
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    expect(mounts).toContain(join(n.dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~secret', 'sec'));
    expect(mounts).toContain(join(n.dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'mem'));
    expect(statSync(hostDir).isDirectory()).toBe(true);
  }, 150_000);

  it('lists every volume but the hostPath in /stats/summary, the configMap and the disk emptyDir counted as ephemeral storage', async () => {
    type Volume = { name: string; time: string; usedBytes: number; capacityBytes: number; availableBytes: number; inodes: number; inodesUsed: number; pvcRef?: object };
    type Summary = { pods: { podRef: { uid: string }; volume?: Volume[]; 'ephemeral-storage'?: { usedBytes?: number } }[] };
    const volumes = async () => {
      const res = await n.kubeletGet('/stats/summary');
      expect(res.status).toBe(200);
      return (JSON.parse(res.body) as Summary).pods.find((p) => p.podRef.uid === uid);
    };
    const pod = await n.whileUp('the pod\'s volumes measured', async () => {
      const p = await volumes();
      return (p?.volume?.length ?? 0) >= 7 ? p : undefined;
    }, 30_000);
    const names = pod.volume!.map((v) => v.name);
    expect(names.slice(0, 2)).toEqual(['cm', 'scratch']);
    expect(names.slice(2)).toEqual(['dapi', kubeApiAccess(), 'mem', 'proj', 'sec']);
    const byName = new Map(pod.volume!.map((v) => [v.name, v]));
    for (const v of byName.values()) {
      expect(v.pvcRef).toBeUndefined();
      expect(v.capacityBytes).toBeGreaterThan(0);
      expect(v.inodes).toBeGreaterThan(0);
      expect(v.inodesUsed).toBeGreaterThanOrEqual(1);
    }
    // The 64 KiB key, written by the atomic writer; the memory emptyDir is a tmpfs of its sizeLimit.
    expect(byName.get('cm')!.usedBytes).toBeGreaterThanOrEqual(SIZE);
    expect(byName.get('mem')!.capacityBytes).toBe(1024 * 1024);
    expect(pod['ephemeral-storage']?.usedBytes).toBeGreaterThanOrEqual(SIZE + byName.get('scratch')!.usedBytes);
  }, 60_000);

  it('mounts tokens from the real TokenRequest API that the real TokenReview accepts, bound to the pod and to their audience', async () => {
    type Review = { status: { authenticated?: boolean; audiences?: string[]; user?: { username?: string; extra?: Record<string, string[]> } } };
    const review = async (token: string, audiences: string[]) => (await n.create<Review>('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token, audiences } })).status;
    const boundTo = { 'authentication.kubernetes.io/pod-name': ['vols'], 'authentication.kubernetes.io/pod-uid': [uid] };
    const user = { username: `system:serviceaccount:${ns}:default` };
    const [token, saToken] = tokens();
    const accepted = await review(token!, ['vault']);
    expect(accepted).toMatchObject({ authenticated: true, audiences: ['vault'], user });
    expect(accepted.user?.extra).toMatchObject(boundTo);
    // Bound to its audience: the API server's own refuses it; the kube-api-access token is for the API server.
    expect((await review(token!, [])).authenticated).toBeFalsy();
    const sa = await review(saToken!, []);
    expect(sa).toMatchObject({ authenticated: true, user });
    expect(sa.user?.extra).toMatchObject(boundTo);
  }, 30_000);

  it('shows a ConfigMap and a Secret updated in the API in the mounted files while the pod runs, never a partial file', async () => {
    await put(`/api/v1/namespaces/${ns}/configmaps/settings`, (o) => ({ ...o, data: { greeting: 'hello again', big: big('B') } }));
    await put(`/api/v1/namespaces/${ns}/secrets/creds`, (o) => ({ ...o, data: { password: Buffer.from(SECRET_UPDATED).toString('base64') } }));
    await n.whileUp('the reader to see both updates', () => log().includes('SEEN B') && log().includes(`SECRET 644 ${SECRET_UPDATED}`), 60_000);
    expect(log()).toContain('SEEN A');
    expect(log()).not.toContain('TORN');
    expect(log()).not.toMatch(/SHORT/);
  }, 90_000);

  it('keeps the secret and the tokens out of its log, journal, /pods and the debug server\'s actors', async () => {
    const journal = filesUnder(join(n.dir, 'root', 'events')).map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(journal.length).toBeGreaterThan(0);
    const pods = await n.kubeletGet('/pods');
    expect(pods).toMatchObject({ status: 200, body: expect.stringContaining('"creds"') });
    const actors = await (await fetch(`http://127.0.0.1:${n.debugPort}/debug/actors`)).text();
    expect(actors).toContain('volume:');
    for (const text of [n.kubelet().stderr(), journal, pods.body, actors]) {
      for (const secret of [SECRET_VALUE, SECRET_UPDATED, ...tokens()]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(Buffer.from(secret).toString('base64'));
      }
    }
  });

  it('keeps a pod whose ConfigMap is missing ContainerCreating with FailedMount events, and starts it once the ConfigMap exists', async () => {
    const created = await n.createPod('waits', {
      // Prints the file once, then stays up (no wait of the test's) until its pod is deleted.
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'cat /cfg/k; sleep 3600'], volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] }],
      volumes: [{ name: 'cfg', configMap: { name: 'late' } }],
    });
    // The token volume may fail first, once, while the API server's NodeRestriction cache has not
    // seen the new pod yet (Go's kubelet reports that too); the ConfigMap volume's event is the one asserted.
    const event = await n.whileUp('a FailedMount event for the ConfigMap volume', async () =>
      (await n.events({ uid: created.metadata.uid })).find((e) => e.reason === 'FailedMount' && e.message?.includes('volume "cfg"')), 30_000);
    expect(event).toMatchObject({ type: 'Warning', message: 'MountVolume.SetUp failed for volume "cfg" : configmap "late" not found' });
    expect((await n.pod('waits'))?.status?.phase).toBe('Pending');
    await n.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' }, data: { k: 'v' } });
    await n.whileUp('the pod Running once its ConfigMap exists', async () => (await n.pod('waits'))?.status?.phase === 'Running', 60_000);
    await forceDelete('waits');
  }, 90_000);

  it('refuses a container whose env names a missing ConfigMap key with CreateContainerConfigError and Go\'s message', async () => {
    await n.createPod('badenv', {
      containers: [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'], env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'nope' } } }] }],
    });
    const waiting = await n.whileUp('CreateContainerConfigError', async () => {
      const w = (await n.pod('badenv'))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    }, 30_000);
    expect(waiting.message).toBe(`couldn't find key nope in ConfigMap ${ns}/settings`);
    await forceDelete('badenv');
  }, 60_000);

  it('takes env variables from a file an init container wrote into an emptyDir (fileKeyRef), and refuses a key it does not hold with Go\'s message', async () => {
    const envFile = (key: string, optional?: boolean) => ({ valueFrom: { fileKeyRef: { volumeName: 'config', path: 'config.env', key, ...(optional ? { optional } : {}) } } });
    const spec = (command: string, env: unknown[]) => ({
      restartPolicy: 'Never',
      initContainers: [{
        name: 'write', image: BUSYBOX, volumeMounts: [{ name: 'config', mountPath: '/data' }],
        command: ['sh', '-c', "printf \"CONFIG_1='value 1'\\n# note\\nCONFIG_2='two\\nlines'\\n\" > /data/config.env"],
      }],
      containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', command], env }],
      volumes: [{ name: 'config', emptyDir: {} }],
    });
    const created = await n.createPod('envfile', spec('printf "%s|%s|%s" "$CONFIG_1" "$CONFIG_2" "${NOT_THERE-unset}" > /dev/termination-log', [
      { name: 'CONFIG_1', ...envFile('CONFIG_1') }, { name: 'CONFIG_2', ...envFile('CONFIG_2') }, { name: 'NOT_THERE', ...envFile('NOT_THERE', true) },
    ]));
    const terminated = await n.whileUp('the env file reader terminated', async () => (await n.pod('envfile'))?.status?.containerStatuses?.[0]?.state?.terminated, 60_000);
    expect(terminated).toMatchObject({ exitCode: 0, message: 'value 1|two\nlines|unset' });
    await n.createPod('envfile-missing', spec('true', [{ name: 'MISSING', ...envFile('MISSING') }]));
    const waiting = await n.whileUp('CreateContainerConfigError', async () => {
      const w = (await n.pod('envfile-missing'))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    }, 60_000);
    const podUid = (await n.pod('envfile-missing'))?.metadata?.uid ?? '';
    expect(waiting.message).toBe(`environment variable key "MISSING" not found in file "${join(n.dir, 'root', 'pods', podUid, 'volumes', 'kubernetes.io~empty-dir', 'config', 'config.env')}"`);
    expect(created).toBeDefined();
    await forceDelete('envfile');
    await forceDelete('envfile-missing');
  }, 120_000);

  it('reads termination messages back into the status: the file, and the log under FallbackToLogsOnError', async () => {
    await n.createPod('last-words', {
      restartPolicy: 'Never',
      containers: [
        { name: 'file', image: BUSYBOX, command: ['sh', '-c', 'printf "written to the file" > /dev/termination-log; exit 3'] },
        { name: 'custom', image: BUSYBOX, terminationMessagePath: '/tmp/my-message', command: ['sh', '-c', 'printf custom > /tmp/my-message; exit 0'] },
        { name: 'logs', image: BUSYBOX, terminationMessagePolicy: 'FallbackToLogsOnError', command: ['sh', '-c', 'echo first; echo "last words"; exit 1'] },
      ],
    });
    type Terminated = { name: string; state?: { terminated?: { exitCode?: number; message?: string } } };
    const statuses = await n.whileUp('every container terminated', async () => {
      const cs = ((await n.pod('last-words'))?.status?.containerStatuses ?? []) as Terminated[];
      return cs.length === 3 && cs.every((c) => c.state?.terminated) ? cs : undefined;
    }, 60_000);
    const message = (name: string) => statuses.find((c) => c.name === name)?.state?.terminated?.message;
    expect(message('file')).toBe('written to the file');
    expect(message('custom')).toBe('custom');
    expect(message('logs')).toBe('first\nlast words\n');
    await forceDelete('last-words');
  }, 90_000);

  it('deletes the pod: every volume unmounted and the pod directory removed', async () => {
    await forceDelete('vols');
    const podDir = join(n.dir, 'root', 'pods', uid);
    await n.whileUp('the pod directory removed', () => !existsSync(podDir), 60_000);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(podDir);
    // The hostPath is the node's: left as it was.
    expect(readFileSync(join(n.dir, 'host-path', 'f'), 'utf8')).toBe('host\n');
  }, 90_000);

  it('cleans up pod directories a previous run left behind, unmounting their memory volumes first', async () => {
    await n.stop();
    const orphan = join(n.dir, 'root', 'pods', 'orphan-uid-1');
    const onDisk = join(orphan, 'volumes', 'kubernetes.io~empty-dir', 'scratch');
    const inMemory = join(n.dir, 'root', 'pods', 'orphan-uid-2', 'volumes', 'kubernetes.io~secret', 'creds');
    mkdirSync(onDisk, { recursive: true });
    writeFileSync(join(onDisk, 'left'), 'x');
    mkdirSync(inMemory, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', inMemory]);
    writeFileSync(join(inMemory, 'password'), 'x');
    await n.restart(RESYNC);
    await n.whileUp('the orphaned pod directories removed', () => !existsSync(orphan) && !existsSync(join(n.dir, 'root', 'pods', 'orphan-uid-2')), 60_000);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(inMemory);
  }, 90_000);
});
