import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeContainerMounts, type ContainerMountDeps } from '../../../src/actors/runtime-manager/container-mounts.js';
import type { Container, Pod, PodSpec } from '../../../src/domain/pod/types.js';
import type { CriMount } from '../../../src/domain/runtime/cri-config.js';
import type { EnvVarValue } from '../../../src/domain/runtime/env.js';
import type { PodFiles } from '../../../src/ports/pod-files.js';
import { readContainerEnvFiles } from '../../../src/actors/runtime-manager/env-files.js';

/** Records every call; answers paths under a fake root; can fail the next termination-message file. */
class FakePodFiles implements PodFiles {
  readonly calls: unknown[][] = [];
  failTerminationFile?: Error;

  async ensureHostsFile(pod: Pod, podIPs: readonly string[], clusterDomain: string): Promise<string> {
    this.calls.push(['ensureHostsFile', pod.metadata.uid, [...podIPs], clusterDomain]);
    return `/root/pods/${pod.metadata.uid}/etc-hosts`;
  }

  async createTerminationMessageFile(podUid: string, containerName: string): Promise<string> {
    this.calls.push(['createTerminationMessageFile', podUid, containerName]);
    if (this.failTerminationFile) throw this.failTerminationFile;
    return `/root/pods/${podUid}/containers/${containerName}/0000abcd`;
  }

  async resolveSubPath(mount: { volumePath: string; subPath: string; volumeMountName: string; containerName: string }): Promise<string> {
    this.calls.push(['resolveSubPath', mount]);
    return `${mount.volumePath}/${mount.subPath}`;
  }

  async readEnvFile(volumePath: string, path: string): Promise<{ path: string; text: string }> {
    this.calls.push(['readEnvFile', volumePath, path]);
    return { path: `${volumePath}/${path}`, text: "A='a'\n" };
  }

  async readTerminationMessage(): Promise<string> {
    return '';
  }
}

const rootDir = '/root';
let files: FakePodFiles;
let lines: string[];
let deps: ContainerMountDeps;

beforeEach(() => {
  files = new FakePodFiles();
  lines = [];
  deps = { rootDir, files, clusterDomain: 'cluster.local', selinuxEnabled: false, log: pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) }) };
});

function podWith(container: Container, spec: Partial<PodSpec> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' },
    spec: {
      containers: [container],
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'config', configMap: { name: 'settings' } },
        { name: 'host', hostPath: { path: '/var/log' } },
        { name: 'share', nfs: { server: 'nfs.example', path: '/export' } },
      ],
      ...spec,
    },
  };
}

const noTerminationFile = { terminationMessagePath: '' };
const noEnv = (): EnvVarValue[] => [];
const privateMount = (containerPath: string, hostPath: string, extra: Partial<CriMount> = {}): CriMount => ({
  container_path: containerPath, host_path: hostPath, readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE', ...extra,
});

describe('makeContainerMounts', () => {
  it('mounts each volumeMount from its plugin\'s node path, with readOnly (always, for API content) and propagation', async () => {
    const c: Container = {
      name: 'app', image: 'x', ...noTerminationFile,
      volumeMounts: [
        { name: 'scratch', mountPath: '/cache' },
        { name: 'config', mountPath: '/etc/app', readOnly: true },
        { name: 'host', mountPath: '/host-logs', mountPropagation: 'HostToContainer' },
        { name: 'scratch', mountPath: '/shared', mountPropagation: 'Bidirectional' },
        { name: 'config', mountPath: '/etc/app2', mountPropagation: 'None' },
      ],
    };
    expect(await makeContainerMounts(deps, podWith(c), c, [], noEnv)).toEqual([
      privateMount('/cache', '/root/pods/uid-1/volumes/kubernetes.io~empty-dir/scratch'),
      privateMount('/etc/app', '/root/pods/uid-1/volumes/kubernetes.io~configmap/config', { readonly: true }),
      privateMount('/host-logs', '/var/log', { propagation: 'PROPAGATION_HOST_TO_CONTAINER' }),
      privateMount('/shared', '/root/pods/uid-1/volumes/kubernetes.io~empty-dir/scratch', { propagation: 'PROPAGATION_BIDIRECTIONAL' }),
      privateMount('/etc/app2', '/root/pods/uid-1/volumes/kubernetes.io~configmap/config', { readonly: true }),
    ]);
    expect(files.calls).toEqual([]);
  });

  it('refuses an unknown propagation mode as a container config error', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name: 'scratch', mountPath: '/c', mountPropagation: 'Sideways' as 'None' }] };
    await expect(makeContainerMounts(deps, podWith(c), c, [], noEnv)).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
  });

  it('refuses a recursive read-only mount the runtime cannot give, and makes IfPossible a plain read-only mount', async () => {
    const enabled: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name: 'scratch', mountPath: '/c', readOnly: true, recursiveReadOnly: 'Enabled' }] };
    await expect(makeContainerMounts(deps, podWith(enabled), enabled, [], noEnv)).rejects.toMatchObject({
      code: 'KLT_ERR_CONTAINER_CONFIG', message: 'failed to resolve recursive read-only mode: volume "scratch" requested recursive read-only mode, but it is not supported by the runtime',
    });
    const possible: Container = { ...enabled, volumeMounts: [{ name: 'scratch', mountPath: '/c', readOnly: true, recursiveReadOnly: 'IfPossible' }] };
    expect(await makeContainerMounts(deps, podWith(possible), possible, [], noEnv)).toEqual([expect.objectContaining({ container_path: '/c', readonly: true })]);
  });

  it('resolves a subPath inside the volume through the pod files', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name: 'config', mountPath: '/etc/app.yaml', subPath: 'conf/app.yaml', readOnly: true }] };
    const volumePath = '/root/pods/uid-1/volumes/kubernetes.io~configmap/config';
    expect(await makeContainerMounts(deps, podWith(c), c, [], noEnv)).toEqual([
      privateMount('/etc/app.yaml', `${volumePath}/conf/app.yaml`, { readonly: true }),
    ]);
    expect(files.calls).toEqual([['resolveSubPath', { volumePath, subPath: 'conf/app.yaml', volumeMountName: 'config', containerName: 'app' }]]);
  });

  it('expands a subPathExpr from the container environment, read only when needed', async () => {
    let envReads = 0;
    const env = () => {
      envReads++;
      return [{ name: 'POD_NAME', value: 'web' }];
    };
    const c: Container = {
      name: 'app', image: 'x', ...noTerminationFile,
      volumeMounts: [{ name: 'host', mountPath: '/logs', subPathExpr: 'pods/$(POD_NAME)' }, { name: 'scratch', mountPath: '/cache' }],
    };
    const mounts = await makeContainerMounts(deps, podWith(c), c, [], env);
    expect(mounts[0]).toEqual(privateMount('/logs', '/var/log/pods/web'));
    expect(files.calls).toEqual([['resolveSubPath', { volumePath: '/var/log', subPath: 'pods/web', volumeMountName: 'host', containerName: 'app' }]]);
    expect(envReads).toBe(1);
  });

  it('refuses a subPathExpr naming an unset variable', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name: 'host', mountPath: '/logs', subPathExpr: '$(NOPE)' }] };
    await expect(makeContainerMounts(deps, podWith(c), c, [], noEnv)).rejects.toThrow('missing value for NOPE');
    expect(files.calls).toEqual([]);
  });

  it.each(['x', 'share'])('refuses a mount of volume %s the pod cannot mount, with Go\'s message', async (name) => {
    const c: Container = { name: 'c', image: 'x', volumeMounts: [{ name, mountPath: '/data' }] };
    const failure = makeContainerMounts(deps, podWith(c), c, ['10.1.0.5'], noEnv);
    await expect(failure).rejects.toMatchObject({ code: 'KLT_ERR_CONTAINER_CONFIG' });
    await expect(failure).rejects.toThrow(`cannot find volume "${name}" to mount into container "c"`);
  });

  it('mounts the pod\'s /etc/hosts once the pod has an IP, having written it', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile };
    expect(await makeContainerMounts(deps, podWith(c), c, ['10.1.0.5', 'fd00::5'], noEnv)).toEqual([
      privateMount('/etc/hosts', '/root/pods/uid-1/etc-hosts'),
    ]);
    expect(files.calls).toEqual([['ensureHostsFile', 'uid-1', ['10.1.0.5', 'fd00::5'], 'cluster.local']]);
  });

  it('mounts /etc/hosts for a hostNetwork pod without an IP', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile };
    const mounts = await makeContainerMounts(deps, podWith(c, { hostNetwork: true }), c, [], noEnv);
    expect(mounts.map((m) => m.container_path)).toEqual(['/etc/hosts']);
  });

  it('leaves /etc/hosts out for a pod on the pod network without an IP, and writes nothing', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile };
    expect(await makeContainerMounts(deps, podWith(c, { hostNetwork: false }), c, [], noEnv)).toEqual([]);
    expect(files.calls).toEqual([]);
  });

  it('leaves /etc/hosts to a container that mounts a volume there itself', async () => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name: 'config', mountPath: '/etc/hosts', subPath: 'hosts' }] };
    const mounts = await makeContainerMounts(deps, podWith(c), c, ['10.1.0.5'], noEnv);
    expect(mounts.map((m) => m.host_path)).toEqual(['/root/pods/uid-1/volumes/kubernetes.io~configmap/config/hosts']);
    expect(files.calls.map((call) => call[0])).toEqual(['resolveSubPath']);
  });

  it('mounts the termination-message file at /dev/termination-log by default', async () => {
    const c: Container = { name: 'app', image: 'x' };
    expect(await makeContainerMounts(deps, podWith(c), c, [], noEnv)).toEqual([
      privateMount('/dev/termination-log', '/root/pods/uid-1/containers/app/0000abcd'),
    ]);
    expect(files.calls).toEqual([['createTerminationMessageFile', 'uid-1', 'app']]);
  });

  it('mounts the termination-message file at a custom path, after the volumes and /etc/hosts', async () => {
    const c: Container = { name: 'app', image: 'x', terminationMessagePath: '/tmp/done', volumeMounts: [{ name: 'scratch', mountPath: '/cache' }] };
    const mounts = await makeContainerMounts(deps, podWith(c), c, ['10.1.0.5'], noEnv);
    expect(mounts.map((m) => m.container_path)).toEqual(['/cache', '/etc/hosts', '/tmp/done']);
    expect(mounts[2]).toEqual(privateMount('/tmp/done', '/root/pods/uid-1/containers/app/0000abcd'));
  });

  it('logs a termination-message file that cannot be made and leaves its mount out', async () => {
    files.failTerminationFile = new Error('disk full');
    const c: Container = { name: 'app', image: 'x', volumeMounts: [{ name: 'scratch', mountPath: '/cache' }] };
    const mounts = await makeContainerMounts(deps, podWith(c), c, [], noEnv);
    expect(mounts.map((m) => m.container_path)).toEqual(['/cache']);
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: 'Failed to create the termination message file; the container runs without one',
      pod: 'shop/web',
      containerName: 'app',
      err: { message: 'disk full' },
    });
  });

  // Go: the volume plugin's Managed && SELinuxRelabel, and the host's selinux.GetEnabled().
  it.each([
    [true, 'scratch', true],
    [true, 'config', true],
    [true, 'host', false],
    [false, 'scratch', false],
    [false, 'config', false],
  ])('with SELinux on = %s, asks to relabel volume %s: %s', async (selinuxEnabled, name, relabel) => {
    const c: Container = { name: 'app', image: 'x', ...noTerminationFile, volumeMounts: [{ name, mountPath: '/data' }] };
    const [mount] = await makeContainerMounts({ ...deps, selinuxEnabled }, podWith(c), c, [], noEnv);
    expect(mount?.selinux_relabel).toBe(relabel);
  });

  it('asks to relabel /etc/hosts and the termination-message file exactly when SELinux is on', async () => {
    const c: Container = { name: 'app', image: 'x' };
    for (const selinuxEnabled of [true, false]) {
      const mounts = await makeContainerMounts({ ...deps, selinuxEnabled }, podWith(c), c, ['10.1.0.5'], noEnv);
      expect(mounts.map((m) => [m.container_path, m.selinux_relabel])).toEqual([['/etc/hosts', selinuxEnabled], ['/dev/termination-log', selinuxEnabled]]);
    }
  });
});

describe('readContainerEnvFiles', () => {
  const envFile = (volumeName: string, path: string, key: string) => ({ valueFrom: { fileKeyRef: { volumeName, path, key } } });

  it('reads each (volume, path) a container names once, from the pod\'s volume whether or not the container mounts it', async () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'A', ...envFile('scratch', 'config.env', 'A') }, { name: 'B', ...envFile('scratch', 'config.env', 'B') }] };
    const read = (await readContainerEnvFiles(deps, podWith(c), c))!;
    expect(files.calls).toEqual([['readEnvFile', '/root/pods/uid-1/volumes/kubernetes.io~empty-dir/scratch', 'config.env']]);
    expect(read('scratch', 'config.env')).toEqual({ path: '/root/pods/uid-1/volumes/kubernetes.io~empty-dir/scratch/config.env', text: "A='a'\n" });
  });

  it('answers no volume for one the pod does not have, reads nothing for a container naming no env file', async () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'A', ...envFile('nonexistent-volume', 'env', 'A') }] };
    expect((await readContainerEnvFiles(deps, podWith(c), c))!('nonexistent-volume', 'env')).toEqual({ noVolume: true });
    expect(await readContainerEnvFiles(deps, podWith({ name: 'app', image: 'x:1' }), { name: 'app', image: 'x:1' })).toBeUndefined();
    expect(files.calls).toEqual([]);
  });
});
