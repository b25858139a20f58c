/**
 * A stock kubeadm node end to end: a real systemd (../shared/lab/systemd) with containerd as its
 * service and runc's `SystemdCgroup = true`, the real control plane (../shared/lab/kube), and
 * kubelet-ts run inside as a Type=notify service of that systemd, with kubeadm's KubeletConfiguration
 * (`cgroupDriver: systemd`). It joins; a Guaranteed, a Burstable and a BestEffort pod run under Go's
 * slices with Go's properties, read back with `systemctl show`, their containers in containerd's
 * scopes below them; a restart adopts the running pods' slices; evicted, the pods leave no unit
 * behind. Then the Go kubelet v1.35 runs the same pods in the same lab, and its slices show the same
 * properties.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, until } from '../support/daemon.js';
import { tunableBinds } from '../support/kernel-tunables-view.js';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { requireLabBinary } from '../support/lab-bin.js';
import { untilChildDone } from '../support/kubelet-journal.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { allOf, describeNeeding } from '../support/real-parts.js';
import { startLabContainerd, startSystemdLab, systemdLabPart, type LabContainerd, type SystemdLab } from '../support/systemd-lab.js';

const NODE = 'kts-systemd-node';
const UNIT = 'kubelet-ts-e2e.service';
const GO_UNIT = 'go-kubelet-e2e.service';
const GO_NODE = 'go-systemd-node';
/** Where the Go kubelet writes pod logs whatever its configuration says (the host's, shared with the lab). */
const POD_LOGS = '/var/log/pods';
const MiB = 2 ** 20;
const WATCHDOG_SEC = 6;

/**
 * kubeadm v1.26's /var/lib/kubelet/config.yaml, key by key (nested values in flow style); the lines
 * a test must change (its CA, ports, static pod path) are the lab node's defaults, which replace these.
 */
const KUBEADM_CONFIG = [
  'cgroupDriver: systemd',
  'clusterDNS: [10.96.0.10]',
  'clusterDomain: cluster.local',
  'cpuManagerReconcilePeriod: 0s',
  'evictionPressureTransitionPeriod: 0s',
  'fileCheckFrequency: 0s',
  'healthzBindAddress: 127.0.0.1',
  'httpCheckFrequency: 0s',
  'imageMinimumGCAge: 0s',
  'logging: {flushFrequency: 0, options: {json: {infoBufferSize: "0"}}, verbosity: 0}',
  'memorySwap: {}',
  'nodeStatusReportFrequency: 0s',
  'nodeStatusUpdateFrequency: 0s',
  'rotateCertificates: true',
  'runtimeRequestTimeout: 0s',
  'shutdownGracePeriod: 0s',
  'shutdownGracePeriodCriticalPods: 0s',
  'streamingConnectionIdleTimeout: 0s',
  'syncFrequency: 0s',
  'volumeStatsAggPeriod: 0s',
];
/**
 * Beyond kubeadm's: protectKernelDefaults, as CIS benchmarks ask (the lab's mount namespace shows
 * Go's values over /proc/sys, whatever the host holds, so it starts), and a pod pids limit, so the pod
 * slices' TasksMax is shown too.
 */
const ADDED = ['protectKernelDefaults: true', 'podPidsLimit: 1024'];

const RESOURCES = {
  guaranteed: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '250m', memory: '64Mi' } },
  burstable: { requests: { cpu: '100m', memory: '32Mi' }, limits: { memory: '64Mi' } },
  besteffort: undefined,
} as const;
type Qos = keyof typeof RESOURCES;
const QOS: Qos[] = ['guaranteed', 'burstable', 'besteffort'];

/** Go's pod slice: under kubepods.slice for Guaranteed, under the QoS class's slice otherwise, the uid's '-' escaped. */
const podSlice = (qos: Qos, uid: string) => `kubepods-${qos === 'guaranteed' ? '' : `${qos}-`}pod${uid.replace(/-/g, '_')}.slice`;
const SLICE_PROPERTIES = ['ActiveState', 'Slice', 'CPUShares', 'MemoryLimit', 'CPUQuotaPerSecUSec', 'CPUQuotaPeriodUSec', 'TasksMax', 'DefaultDependencies', 'Wants', 'Description'];

describeNeeding(allOf(systemdLabPart(), kubeLabPart(process.env, ['kubelet'])), 'kubelet-ts on a stock kubeadm node (systemd cgroup driver, containerd as a systemd service)', () => {
  let lab: SystemdLab;
  let containerd: LabContainerd;
  let node: LabNode;
  let criDir = '';
  let goDir = '';
  const uids: Partial<Record<Qos, string>> = {};
  /** What kubelet-ts's slices showed, by QoS class (pods) and by slice (the classes' own), for the Go kubelet's turn. */
  const ours = { pods: {} as Partial<Record<Qos, Record<string, string>>>, slices: {} as Record<string, Record<string, string>> };

  beforeAll(async () => {
    lab = await startSystemdLab();
    criDir = mkdtempSync(join(tmpdir(), 'kts-cri-systemd-'));
    goDir = mkdtempSync(join(tmpdir(), 'kts-go-systemd-'));
    // In the lab's mount namespace alone, which both kubelets run in; they go with it at lab.down().
    const binds = await lab.run(['sh', '-c', tunableBinds(join(goDir, 'tunables'))]);
    if (binds.code !== 0) throw new Error(`Go's kernel tunables could not be bound over the lab's /proc/sys:\n${binds.stderr}`);
    containerd = await startLabContainerd(lab, criDir, { bridge: 'ktssd0', subnet: '10.218.0.0/24', name: 'kts-systemd-e2e' });
    node = await startLabNode({
      name: NODE,
      endpoint: containerd.endpoint,
      extraConfig: () => [...KUBEADM_CONFIG, ...ADDED],
      launcher: {
        // The kubelet as systemd runs a node's: a Type=notify service, its stderr piped back to the test.
        wrap: (argv) => lab.inside(['systemd-run', '--quiet', `--unit=${UNIT}`, '--pipe', '--wait', '--collect',
          '-p', 'Type=notify', '-p', 'NotifyAccess=all', '-p', `WatchdogSec=${WATCHDOG_SEC}`, '-E', `KUBELET_TS_LEGACY_LOG_DIR=${process.env.KUBELET_TS_LEGACY_LOG_DIR ?? ''}`, '--', ...argv]),
        stop: async () => {
          await lab.systemctl(['stop', UNIT], true);
        },
      },
    });
  }, 300_000);

  afterAll(async () => {
    await lab?.systemctl(['stop', GO_UNIT], true);
    for (const name of existsSync(POD_LOGS) ? readdirSync(POD_LOGS) : []) if (name.includes(`-${GO_NODE}_`)) rmSync(join(POD_LOGS, name), { recursive: true, force: true });
    await node?.dispose();
    await containerd?.down();
    await lab?.down();
    for (const d of [criDir, goDir]) if (d) rmSync(d, { recursive: true, force: true });
  }, 300_000);

  const ready = () => node.whileUp('the node Ready', async () =>
    (await node.nodeObject().catch(() => undefined))?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True', 90_000);
  const running = (name: string) => node.whileUp(`${name} running`, async () => {
    const p = await node.pod(name);
    return p?.status?.phase === 'Running' ? p : undefined;
  }, 90_000);

  it('joins as a systemd service that systemd sees active once the kubelet said READY=1', async () => {
    await ready();
    // READY=1 goes out at the end of start-up, which a Ready node may come before.
    await node.whileUp(`${UNIT} active`, async () => (await lab.show(UNIT, ['ActiveState'])).ActiveState === 'active', 30_000);
    expect((await lab.show(UNIT, ['Type', 'NotifyAccess']))).toEqual({ Type: 'notify', NotifyAccess: 'all' });
    // The watchdog fed: its timestamp moves on, and the same process runs.
    const fed = await lab.show(UNIT, ['WatchdogTimestampMonotonic', 'MainPID', 'WatchdogUSec']);
    expect(fed.WatchdogUSec).toBe(`${WATCHDOG_SEC}s`);
    await node.whileUp('a later WATCHDOG=1', async () => Number((await lab.show(UNIT, ['WatchdogTimestampMonotonic'])).WatchdogTimestampMonotonic) > Number(fed.WatchdogTimestampMonotonic), WATCHDOG_SEC * 1000);
    expect((await lab.show(UNIT, ['MainPID', 'ActiveState']))).toEqual({ MainPID: fed.MainPID, ActiveState: 'active' });
    // The node-allocatable slice and the QoS slices, made over D-Bus as Go makes them.
    const kubepods = await lab.show('kubepods.slice', SLICE_PROPERTIES);
    expect(kubepods).toMatchObject({ ActiveState: 'active', Slice: '-.slice', Wants: '-.slice', DefaultDependencies: 'no', Description: 'libcontainer container kubepods.slice' });
    const cores = Number((await lab.run(['nproc'])).stdout.trim());
    expect(Number(kubepods.CPUShares)).toBe(cores * 1024);
    // No reservation in kubeadm's configuration: the node's whole memory.
    const memTotal = Number(/MemTotal:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    expect(Math.abs(Number(kubepods.MemoryLimit) - memTotal)).toBeLessThan(MiB);
    // Go's pid capacity: the smaller of the two kernel limits, as read on the node (pid_max may be its PID namespace's).
    const limits = await Promise.all(['pid_max', 'threads-max'].map(async (f) => Number((await lab.run(['cat', `/proc/sys/kernel/${f}`])).stdout.trim())));
    expect(kubepods.TasksMax).toBe(String(Math.min(...limits)));
    for (const qos of ['burstable', 'besteffort']) {
      expect(await lab.show(`kubepods-${qos}.slice`, ['ActiveState', 'Slice', 'Wants'])).toEqual({ ActiveState: 'active', Slice: 'kubepods.slice', Wants: 'kubepods.slice' });
    }
    expect((await lab.show('kubepods-besteffort.slice', ['CPUShares'])).CPUShares).toBe('2');
    for (const slice of ['kubepods.slice', 'kubepods-besteffort.slice']) ours.slices[slice] = await lab.show(slice, SLICE_PROPERTIES);
  }, 120_000);

  it('runs a pod of each QoS class in its slice with Go\'s properties, its containers in containerd\'s scopes below', async () => {
    for (const qos of QOS) {
      await node.createPod(qos, { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP], ...(RESOURCES[qos] ? { resources: RESOURCES[qos] } : {}) }] });
    }
    const pods: Partial<Record<Qos, LabPod>> = {};
    for (const qos of QOS) {
      pods[qos] = await running(qos);
      uids[qos] = pods[qos]!.metadata.uid;
    }
    const g = await lab.show(podSlice('guaranteed', uids.guaranteed!), SLICE_PROPERTIES);
    expect(g).toMatchObject({ ActiveState: 'active', Slice: 'kubepods.slice', Wants: 'kubepods.slice', DefaultDependencies: 'no',
      CPUShares: '256', MemoryLimit: String(64 * MiB), CPUQuotaPerSecUSec: '250ms', CPUQuotaPeriodUSec: '100ms', TasksMax: '1024' });
    const b = await lab.show(podSlice('burstable', uids.burstable!), SLICE_PROPERTIES);
    expect(b).toMatchObject({ ActiveState: 'active', Slice: 'kubepods-burstable.slice', CPUShares: '102', MemoryLimit: String(64 * MiB), CPUQuotaPerSecUSec: 'infinity', TasksMax: '1024' });
    const be = await lab.show(podSlice('besteffort', uids.besteffort!), SLICE_PROPERTIES);
    expect(be).toMatchObject({ ActiveState: 'active', Slice: 'kubepods-besteffort.slice', CPUShares: '2', MemoryLimit: 'infinity', TasksMax: '1024' });
    // The Burstable class counts its pods' cpu requests.
    await node.whileUp('kubepods-burstable.slice at 102 shares', async () => (await lab.show('kubepods-burstable.slice', ['CPUShares'])).CPUShares === '102', 70_000);
    Object.assign(ours.pods, { guaranteed: g, burstable: b, besteffort: be });
    ours.slices['kubepods-burstable.slice'] = await lab.show('kubepods-burstable.slice', SLICE_PROPERTIES);
    // runc made each container a scope in its pod's slice (containerd took the slice from the sandbox's cgroup_parent).
    const scopes = await lab.units('cri-containerd-*.scope');
    const slices = new Set<string>();
    for (const scope of scopes) slices.add((await lab.show(scope, ['Slice'])).Slice!);
    expect([...slices].sort()).toEqual(QOS.map((q) => podSlice(q, uids[q]!)).sort());
    // The cgroup files say what the unit says (runc writes them after SetUnitProperties).
    const cpu = await lab.run(['cat', `/sys/fs/cgroup/cpu/kubepods.slice/${podSlice('guaranteed', uids.guaranteed!)}/cpu.cfs_quota_us`]);
    expect(cpu.stdout.trim()).toBe('25000');
  }, 240_000);

  it('adopts the running pods\' slices when restarted', async () => {
    const before = new Map<Qos, string>();
    for (const qos of QOS) before.set(qos, (await lab.show(podSlice(qos, uids[qos]!), ['ActiveEnterTimestampMonotonic'])).ActiveEnterTimestampMonotonic!);
    await node.restart();
    await node.whileUp(`${UNIT} active again`, async () => (await lab.show(UNIT, ['ActiveState'])).ActiveState === 'active', 60_000);
    // The new process's pod cgroup sweep, once its sources delivered the pods (its journal is a file
    // of its own, latest.jsonl, so from its first record): it removes nothing.
    const root = join(node.dir, 'root');
    expect(await untilChildDone(root, 0, 'containerManager', 'cleanupPodCgroups', 30_000, node.kubelet().stderr)).toEqual({ removed: [] });
    for (const qos of QOS) await running(qos);
    for (const qos of QOS) {
      // The same activation: the slice was neither stopped nor made again.
      expect((await lab.show(podSlice(qos, uids[qos]!), ['ActiveEnterTimestampMonotonic'])).ActiveEnterTimestampMonotonic).toBe(before.get(qos));
      expect((await node.pod(qos))?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    }
  }, 240_000);

  it('evicts the pods and leaves no unit of theirs behind', async () => {
    for (const qos of QOS) {
      const res = await labApi(node.lab, 'POST', `/api/v1/namespaces/${node.ns}/pods/${qos}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: qos, namespace: node.ns } });
      expect(res.status).toBe(201);
    }
    await node.whileUp('the evicted pods gone', async () => (await Promise.all(QOS.map((q) => node.pod(q)))).every((p) => p === undefined), 90_000);
    await node.whileUp('their slices and scopes gone', async () => {
      const left = [...(await lab.units('kubepods-*pod*.slice')), ...(await lab.units('cri-containerd-*.scope'))];
      return left.length === 0;
    }, 60_000);
    expect(await lab.units('kubepods*.slice')).toEqual(['kubepods-besteffort.slice', 'kubepods-burstable.slice', 'kubepods.slice']);
  }, 180_000);
  it('gives the same pods the slices and properties the Go kubelet v1.35 gives them, in the same lab', async () => {
    await node.stop();
    // A copy in the test's directory, which the lab's namespaces see as the host does.
    const kubelet = join(goDir, 'kubelet');
    copyFileSync(requireLabBinary('kubelet'), kubelet);
    mkdirSync(join(goDir, 'manifests'));
    for (const qos of QOS) {
      writeFileSync(join(goDir, 'manifests', `${qos}.json`), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: qos, namespace: 'default' },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'Never', command: ['sh', '-c', SLEEP], ...(RESOURCES[qos] ? { resources: RESOURCES[qos] } : {}) }] } }));
    }
    // Standalone, on the lab's containerd; protectKernelDefaults (in ADDED) so that it never writes the host's sysctls.
    writeFileSync(join(goDir, 'config.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', ...KUBEADM_CONFIG, ...ADDED,
      `staticPodPath: ${join(goDir, 'manifests')}`, 'address: 127.0.0.1', `port: ${await freePort()}`, 'readOnlyPort: 0', 'healthzPort: 0',
      // v1.35 refuses cgroup v1 unless told otherwise; these machines are v1.
      'failSwapOn: false', 'makeIPTablesUtilChains: false', 'failCgroupV1: false',
      'authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}', 'authorization: {mode: AlwaysAllow}', '',
    ].join('\n'));
    const log = join(goDir, 'kubelet.log');
    const started = await lab.run(['systemd-run', '--quiet', `--unit=${GO_UNIT}`, '--collect', '-p', `StandardOutput=append:${log}`, '-p', `StandardError=append:${log}`, '--',
      kubelet, `--config=${join(goDir, 'config.yaml')}`, `--container-runtime-endpoint=${containerd.endpoint}`, `--root-dir=${join(goDir, 'root')}`,
      `--cert-dir=${join(goDir, 'root', 'pki')}`, `--hostname-override=${GO_NODE}`, '--v=2']);
    expect(started.code).toBe(0);
    const goLog = () => (existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '');
    const goSlices = await until('the Go kubelet\'s three pod slices with their properties set', async () => {
      const units = await lab.units('kubepods-*pod*.slice');
      const byQos: Partial<Record<Qos, Record<string, string>>> = {};
      for (const unit of units) {
        const qos: Qos = unit.startsWith('kubepods-burstable-') ? 'burstable' : unit.startsWith('kubepods-besteffort-') ? 'besteffort' : 'guaranteed';
        byQos[qos] = await lab.show(unit, SLICE_PROPERTIES);
      }
      return QOS.every((q) => byQos[q]?.TasksMax === '1024') ? byQos : undefined;
    }, 120_000, goLog);
    const comparable = (props: Record<string, string> | undefined) => {
      const { Description: _d, ...rest } = props ?? {};
      return rest;
    };
    expect(goSlices.guaranteed).toMatchObject({ CPUShares: '256', CPUQuotaPerSecUSec: '250ms', MemoryLimit: String(64 * MiB) });
    for (const qos of QOS) expect(comparable(ours.pods[qos]), qos).toEqual(comparable(goSlices[qos]));
    for (const [slice, props] of Object.entries(ours.slices)) expect(comparable(props), slice).toEqual(comparable(await lab.show(slice, SLICE_PROPERTIES)));
    // Its pods removed, its slices go too; then it stops.
    for (const qos of QOS) rmSync(join(goDir, 'manifests', `${qos}.json`));
    await until('the Go kubelet\'s pod slices gone', async () => (await lab.units('kubepods-*pod*.slice')).length === 0, 90_000, goLog);
  }, 300_000);
});
