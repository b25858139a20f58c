/**
 * Volumes end to end (issue 15): the real binary in cluster mode against the test API server, one
 * pod using every plugin (configMap with items and a mode, secret, downwardAPI, projected with a
 * bound service-account token, the namespace's kube-root-ca.crt and the downward API, emptyDir on
 * disk and in memory, hostPath DirectoryOrCreate, a subPath). From inside the container each file
 * has its content and mode; the token is a JWT the API server signed for this pod; a ConfigMap
 * update reaches the mounted file while a reader in the container loops over it and never sees a
 * partial file; deleting the pod unmounts everything and removes its directory. Neither the secret
 * nor the token reaches the kubelet's log or its event journal.
 * On the embedded runtime, and on containerd (KUBELET_IT_CRI; in CI it must run).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { freePort, removePods, until } from '../support/daemon.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const SECRET_VALUE = 's3cr3t-value-that-must-not-leak';
const SIZE = 64 * 1024;
const big = (ch: string) => ch.repeat(SIZE);

interface Kubelet { child: ChildProcess; stderr: () => string; exited: Promise<number | null> }
interface Ports { kubelet: number; readOnly: number; debug: number }

function startKubelet(dir: string, api: TestApiServer, endpoint: string, node: string, ports: Ports): Kubelet {
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${endpoint}`, 'healthzPort: 0',
    'address: 127.0.0.1', `port: ${ports.kubelet}`, `readOnlyPort: ${ports.readOnly}`,
    // The pod resync sets API content up again: short here so the update shows within the test.
    'syncFrequency: 2s', '',
  ].join('\n'));
  const child = spawn(process.execPath, [
    BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`,
    ...(endpoint === 'embedded' ? ['--embedded-runtime-allow-cluster'] : []), `--debug-address=127.0.0.1:${ports.debug}`, `--hostname-override=${node}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => stderr, exited };
}

async function stopKubelet(k: Kubelet): Promise<void> {
  if (k.child.exitCode === null) k.child.kill('SIGTERM');
  await k.exited;
}

/** Prints every file with its mode, then reads the big ConfigMap key in a loop, reporting torn reads. */
const SCRIPT = [
  'show() { echo "FILE $1 $(stat -L -c %a "$1") $(cat "$1" | head -c 200 | tr "\\n" "|")"; }',
  'show /srv/v/cm/greeting; show /srv/v/sec/password; show /srv/v/dapi/name; show /srv/v/dapi/labels; show /srv/v/dapi/mem',
  'show /srv/v/proj/namespace; show /srv/v/proj/ca.crt; echo "TOKEN $(sha256sum /srv/v/proj/token | cut -d" " -f1)"',
  'echo hello > /srv/v/scratch/f && show /srv/v/scratch/f; echo mem > /srv/v/mem/f && show /srv/v/mem/f; echo host > /srv/v/host/f && show /srv/v/host/f',
  'show /srv/v/sub/inner',
  'echo "HOSTS $(grep -c "Entries added by HostAliases" /etc/hosts 2>/dev/null) $(grep -c "kts-alias" /etc/hosts 2>/dev/null)"',
  'echo READY',
  'last=""; n=0',
  'while :; do',
  '  v=$(cat /srv/v/cm/big); c=$(printf %s "$v" | head -c 1)',
  '  case "$v" in *A*B*|*B*A*) echo TORN;; esac',
  `  if [ "\${#v}" != ${SIZE} ]; then echo "SHORT \${#v}"; fi`,
  '  if [ "$c" != "$last" ]; then echo "SEEN $c"; last=$c; fi',
  '  n=$((n+1)); sleep 0.05',
  'done',
].join('\n');

function podManifest(node: string, hostDir: string) {
  return {
    metadata: { name: 'vols', namespace: 'default', labels: { app: 'vols', tier: 'e2e' } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 1,
      serviceAccountName: 'default',
      hostAliases: [{ ip: '10.9.8.7', hostnames: ['kts-alias'] }],
      containers: [{
        name: 'main',
        image: 'kubelet-ts.local/busybox:1.0',
        command: ['sh', '-c', SCRIPT],
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
        name: 'prepare', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'mkdir -p /s/nested && echo inner > /s/nested/inner'],
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
    },
  };
}

type PodObject = { metadata?: { uid?: string }; status?: { phase?: string; podIP?: string; containerStatuses?: { ready?: boolean; restartCount?: number }[] } };

function containerLog(dir: string, uid: string): string {
  const base = join(dir, 'logs', `default_vols_${uid}`, 'main');
  if (!existsSync(base)) return '';
  return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('')
    .split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `volumes on the ${rt.name} runtime`, () => {
  const node = `node-vol-${rt.name}`;
  let dir: string;
  let api: TestApiServer;
  let kubelet: Kubelet | null = null;
  let uid = '';
  let ports: Ports;

  beforeAll(async () => {
    ports = { kubelet: await freePort(), readOnly: await freePort(), debug: await freePort() };
    dir = mkdtempSync(join(tmpdir(), 'kts-volumes-'));
    api = await startTestApiServer();
    api.store.create('configmaps', { metadata: { name: 'settings', namespace: 'default' }, data: { greeting: 'hello volumes', big: big('A') } });
    api.store.create('secrets', { metadata: { name: 'creds', namespace: 'default' }, data: { password: Buffer.from(SECRET_VALUE).toString('base64') } });
    kubelet = startKubelet(dir, api, rt.endpoint, node, ports);
  });
  afterAll(async () => {
    if (kubelet) await stopKubelet(kubelet);
    await api.close();
    await removePods({ endpoint: rt.endpoint, rootDir: join(dir, 'root') });
    // A run that stopped before the deletion test leaves the pod's memory volumes mounted: never delete through them.
    const left = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4] ?? '').filter((p) => p.startsWith(`${dir}/`));
    for (const point of left.reverse()) execFileSync('umount', [point]);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs a pod with every plugin: contents and modes as mounted, a bound token for the pod', async () => {
    const k = kubelet!;
    const hostDir = join(dir, 'host-path');
    api.store.create('pods', podManifest(node, hostDir));
    const pod = await until('the pod Running', () => {
      const p = api.store.get('pods', 'default', 'vols') as PodObject | undefined;
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 90_000, k.stderr);
    uid = pod.metadata!.uid!;
    const log = await until('the container to list its files', () => {
      const text = containerLog(dir, uid);
      return text.includes('READY') ? text : undefined;
    }, 30_000, () => `${k.stderr()}\n${containerLog(dir, uid)}`);

    expect(log).toContain('FILE /srv/v/cm/greeting 440 hello volumes');
    expect(log).toContain(`FILE /srv/v/sec/password 644 ${SECRET_VALUE}`);
    expect(log).toContain('FILE /srv/v/dapi/name 644 vols');
    expect(log).toContain('FILE /srv/v/dapi/labels 644 app="vols"|tier="e2e"');
    expect(log).toContain('FILE /srv/v/dapi/mem 644 64');
    expect(log).toContain('FILE /srv/v/proj/namespace 644 default');
    expect(log).toContain('FILE /srv/v/proj/ca.crt 644 -----BEGIN CERTIFICATE-----');
    expect(log).toContain('FILE /srv/v/scratch/f 644 hello');
    expect(log).toContain('FILE /srv/v/mem/f 644 mem');
    expect(log).toContain('FILE /srv/v/host/f 644 host');
    expect(log).toContain('FILE /srv/v/sub/inner 644 inner');
    // The kubelet-managed /etc/hosts, with the host aliases, wherever Go mounts one: a pod with an IP.
    // The embedded runtime always reports one (the host's address).
    if (rt.name === 'embedded') expect(pod.status?.podIP).toBeTruthy();
    if (pod.status?.podIP) expect(log).toContain('HOSTS 1 1');

    // The token: requested for this pod, signed by the API server, the same bytes the container sees.
    const tokenFile = join(dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~projected', 'proj', 'token');
    const token = readFileSync(tokenFile, 'utf8');
    const claims = await api.tokens.verify(token, { audience: 'vault' }) as { sub: string; 'kubernetes.io': { pod?: { name: string; uid: string } } };
    expect(claims.sub).toBe('system:serviceaccount:default:default');
    expect(claims['kubernetes.io'].pod).toEqual({ name: 'vols', uid });
    expect(log).toContain(`TOKEN ${createHash('sha256').update(token).digest('hex')}`);
    expect(api.tokens.requests.some((r) => r.serviceAccount === 'default' && r.audiences?.includes('vault'))).toBe(true);

    // Secret and projected content live on a tmpfs, never on the node's disk; the hostPath was made.
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    expect(mounts).toContain(join(dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~secret', 'sec'));
    expect(mounts).toContain(join(dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'mem'));
    expect(statSync(hostDir).isDirectory()).toBe(true);
  }, 150_000);

  it('shows a ConfigMap update in the mounted file while the pod runs, never a partial file', async () => {
    const k = kubelet!;
    const current = api.store.get('configmaps', 'default', 'settings') as Record<string, unknown>;
    api.store.update('configmaps', { ...current, data: { greeting: 'hello again', big: big('B') } });
    await until('the reader to see the new content', () => containerLog(dir, uid).includes('SEEN B'), 60_000, () => `${k.stderr()}\n${containerLog(dir, uid)}`);
    const log = containerLog(dir, uid);
    expect(log).toContain('SEEN A');
    expect(log).not.toContain('TORN');
    expect(log).not.toMatch(/SHORT/);
  }, 90_000);

  it('keeps the secret and the token out of its log, journal, /pods and the visualizer\'s actors', async () => {
    const token = readFileSync(join(dir, 'root', 'pods', uid, 'volumes', 'kubernetes.io~projected', 'proj', 'token'), 'utf8');
    const journal = filesUnder(join(dir, 'root', 'events')).map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(journal.length).toBeGreaterThan(0);
    const pods = await (await fetch(`http://127.0.0.1:${ports.readOnly}/pods`)).text();
    expect(pods).toContain('"creds"');
    const actors = await (await fetch(`http://127.0.0.1:${ports.debug}/debug/actors`)).text();
    expect(actors).toContain('volume:');
    for (const text of [kubelet!.stderr(), journal, pods, actors]) {
      expect(text).not.toContain(SECRET_VALUE);
      expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
      expect(text).not.toContain(token);
    }
  });

  it('keeps a pod whose ConfigMap is missing ContainerCreating with FailedMount events, and starts it once the ConfigMap exists', async () => {
    const k = kubelet!;
    api.store.create('pods', {
      metadata: { name: 'waits', namespace: 'default' },
      spec: {
        nodeName: node, terminationGracePeriodSeconds: 1,
        containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'cat /cfg/k; sleep 3600'], volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] }],
        volumes: [{ name: 'cfg', configMap: { name: 'late' } }],
      },
    });
    const failedMount = (e: Record<string, unknown>) =>
      e.reason === 'FailedMount' && (e.involvedObject as { name?: string } | undefined)?.name === 'waits' && e.type === 'Warning';
    const event = await until('a FailedMount event', () => api.store.list('events').items.find(failedMount), 30_000, k.stderr);
    expect(event.message).toBe('MountVolume.SetUp failed for volume "cfg" : configmap "late" not found');
    const waiting = api.store.get('pods', 'default', 'waits') as { status?: { phase?: string; containerStatuses?: unknown[] } } | undefined;
    expect(waiting?.status?.phase ?? 'Pending').toBe('Pending');
    api.store.create('configmaps', { metadata: { name: 'late', namespace: 'default' }, data: { k: 'v' } });
    await until('the pod Running once its ConfigMap exists', () => (api.store.get('pods', 'default', 'waits') as PodObject | undefined)?.status?.phase === 'Running', 60_000, k.stderr);
    api.store.delete('pods', 'default', 'waits', { gracePeriodSeconds: 0 });
  }, 90_000);

  it('refuses a container whose env names a missing ConfigMap key with CreateContainerConfigError and Go\'s message', async () => {
    const k = kubelet!;
    api.store.create('pods', {
      metadata: { name: 'badenv', namespace: 'default' },
      spec: {
        nodeName: node, terminationGracePeriodSeconds: 1,
        containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sleep', '3600'], env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'nope' } } }] }],
      },
    });
    type Waiting = { status?: { containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[] } };
    const waiting = await until('CreateContainerConfigError', () => {
      const w = (api.store.get('pods', 'default', 'badenv') as Waiting | undefined)?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    }, 30_000, k.stderr);
    expect(waiting.message).toBe("couldn't find key nope in ConfigMap default/settings");
    api.store.delete('pods', 'default', 'badenv', { gracePeriodSeconds: 0 });
  }, 60_000);

  it('reads termination messages back into the status: the file, and the log under FallbackToLogsOnError', async () => {
    const k = kubelet!;
    api.store.create('pods', {
      metadata: { name: 'last-words', namespace: 'default' },
      spec: {
        nodeName: node, terminationGracePeriodSeconds: 1, restartPolicy: 'Never',
        containers: [
          { name: 'file', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'printf "written to the file" > /dev/termination-log; exit 3'] },
          { name: 'custom', image: 'kubelet-ts.local/busybox:1.0', terminationMessagePath: '/tmp/my-message', command: ['sh', '-c', 'printf custom > /tmp/my-message; exit 0'] },
          { name: 'logs', image: 'kubelet-ts.local/busybox:1.0', terminationMessagePolicy: 'FallbackToLogsOnError', command: ['sh', '-c', 'echo first; echo "last words"; exit 1'] },
        ],
      },
    });
    type Terminated = { status?: { phase?: string; containerStatuses?: { name: string; state?: { terminated?: { exitCode?: number; message?: string } } }[] } };
    const statuses = await until('every container terminated', () => {
      const cs = (api.store.get('pods', 'default', 'last-words') as Terminated | undefined)?.status?.containerStatuses ?? [];
      return cs.length === 3 && cs.every((c) => c.state?.terminated) ? cs : undefined;
    }, 60_000, k.stderr);
    const message = (name: string) => statuses.find((c) => c.name === name)?.state?.terminated?.message;
    expect(message('file')).toBe('written to the file');
    expect(message('custom')).toBe('custom');
    expect(message('logs')).toBe('first\nlast words\n');
    api.store.delete('pods', 'default', 'last-words', { gracePeriodSeconds: 0 });
  }, 90_000);

  it('deletes the pod: every volume unmounted and the pod directory removed', async () => {
    const k = kubelet!;
    api.store.delete('pods', 'default', 'vols', { gracePeriodSeconds: 0 });
    const podDir = join(dir, 'root', 'pods', uid);
    await until('the pod directory removed', () => !existsSync(podDir), 60_000, k.stderr);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(podDir);
    // The hostPath is the node's: left as it was.
    expect(readFileSync(join(dir, 'host-path', 'f'), 'utf8')).toBe('host\n');
  }, 90_000);

  it('cleans up pod directories a previous run left behind, unmounting their memory volumes first', async () => {
    await stopKubelet(kubelet!);
    const orphan = join(dir, 'root', 'pods', 'orphan-uid-1');
    const onDisk = join(orphan, 'volumes', 'kubernetes.io~empty-dir', 'scratch');
    const inMemory = join(dir, 'root', 'pods', 'orphan-uid-2', 'volumes', 'kubernetes.io~secret', 'creds');
    mkdirSync(onDisk, { recursive: true });
    writeFileSync(join(onDisk, 'left'), 'x');
    mkdirSync(inMemory, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', inMemory]);
    writeFileSync(join(inMemory, 'password'), 'x');
    kubelet = startKubelet(dir, api, rt.endpoint, node, ports);
    const k = kubelet;
    await until('the orphaned pod directories removed', () => !existsSync(orphan) && !existsSync(join(dir, 'root', 'pods', 'orphan-uid-2')), 60_000, k.stderr);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(inMemory);
  }, 90_000);
});
