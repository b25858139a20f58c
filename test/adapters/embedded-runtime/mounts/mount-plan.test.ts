import { dirname } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Mount__Output as Mount } from '../../../../src/generated/runtime/v1/Mount.js';
import type { MountHost, PathKind } from '../../../../src/adapters/embedded-runtime/mounts/mount-host.js';
import { planMounts } from '../../../../src/adapters/embedded-runtime/mounts/mount-plan.js';
import { MountTable, type MountEntry } from '../../../../src/adapters/host/mount-info.js';

const STATE = '/var/lib/kubelet-ts/runtime';

/** A host made of a path list, a few symlinks and a mount table; records nothing, changes nothing. */
class FakeMountHost implements MountHost {
  readonly paths = new Map<string, PathKind>();
  readonly links = new Map<string, string>();
  mounts: MountEntry[] = [
    { mountPoint: '/', fsType: 'ext4', propagation: 'private' },
    { mountPoint: '/dev', fsType: 'devtmpfs', propagation: 'private' },
    { mountPoint: '/dev/pts', fsType: 'devpts', propagation: 'private' },
    { mountPoint: '/dev/shm', fsType: 'tmpfs', propagation: 'private' },
    { mountPoint: '/proc', fsType: 'proc', propagation: 'private' },
    { mountPoint: '/run', fsType: 'tmpfs', propagation: 'shared' },
    { mountPoint: '/run/user/0', fsType: 'tmpfs', propagation: 'shared' },
    { mountPoint: '/run/lock', fsType: 'tmpfs', propagation: 'shared' },
  ];
  reasonUnavailable: string | undefined;
  selinux = false;

  add(path: string, kind: PathKind = 'directory'): this {
    for (let p = dirname(path); p !== '/'; p = dirname(p)) if (!this.paths.has(p)) this.paths.set(p, 'directory');
    this.paths.set(path, kind);
    return this;
  }

  unavailable(): string | undefined {
    return this.reasonUnavailable;
  }

  selinuxEnabled(): boolean {
    return this.selinux;
  }

  async kindOf(path: string): Promise<PathKind | undefined> {
    const real = await this.realpath(path);
    return real === '/' ? 'directory' : this.paths.get(real);
  }

  async realpath(path: string): Promise<string> {
    for (const [link, target] of this.links) {
      if (path === link || path.startsWith(`${link}/`)) return target + path.slice(link.length);
    }
    return path;
  }

  async mountTable(): Promise<MountTable> {
    return new MountTable(this.mounts);
  }
}

function mount(host_path: string, container_path: string, extra: Partial<Mount> = {}): Mount {
  return { host_path, container_path, readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE', ...extra };
}

let host: FakeMountHost;

beforeEach(() => {
  host = new FakeMountHost()
    .add('/dev/pts').add('/dev/shm').add('/proc').add('/dev/null', 'other').add('/etc/hosts', 'other').add('/run/user/0').add('/run/lock')
    .add('/var/lib/kubelet/pods/p/volumes/data').add('/var/lib/kubelet/pods/p/etc-hosts', 'other')
    .add('/var/lib/kubelet/pods/p/containers/c/0', 'other').add(STATE);
  host.links.set('/var/run', '/run');
});

describe('planMounts', () => {
  it('binds each mount, parents first, rprivate or rslave, read-only when asked', async () => {
    host.mounts.push({ mountPoint: '/var/lib/kubelet', fsType: 'ext4', propagation: 'shared' });
    const plan = await planMounts([
      mount('/var/lib/kubelet/pods/p/volumes/data', '/srv/inner', { readonly: true }),
      mount('/var/lib/kubelet/pods/p/etc-hosts', '/etc/hosts'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/srv/', { propagation: 'PROPAGATION_HOST_TO_CONTAINER' }),
    ], host.add('/srv'), STATE);
    expect(plan.binds.map((b) => [b.target, b.readonly, b.propagation])).toEqual([
      ['/srv', false, 'rslave'],
      ['/srv/inner', true, 'rprivate'],
      ['/etc/hosts', false, 'rprivate'],
    ]);
    // /srv/inner is below the /srv mount: its mount point is made in that volume, on the host.
    expect(plan.createOnHost).toEqual([{ path: '/var/lib/kubelet/pods/p/volumes/data/inner', kind: 'directory', where: 'volume', within: '/var/lib/kubelet/pods/p/volumes/data' }]);
    expect(plan.overlays).toEqual([]);
  });

  it('lets a bind share a mount(8) call unless its target is a mount point (through a symlink too) or lies below another bind', async () => {
    const plan = await planMounts([
      mount('/var/lib/kubelet/pods/p/volumes/data', '/srv'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/srv/inner'),
      mount('/var/lib/kubelet/pods/p/etc-hosts', '/etc/hosts'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/var/run/lock'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/run/user/0'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/var/run/secrets/kubernetes.io/serviceaccount'),
    ], host.add('/srv'), STATE);
    expect(plan.binds.map((b) => [b.target, b.batchable])).toEqual([
      ['/srv', true],
      ['/srv/inner', false],
      ['/etc/hosts', true],
      ['/var/run/lock', false],
      ['/run/user/0', false],
      ['/run/secrets/kubernetes.io/serviceaccount', true],
    ]);
  });

  it('asks the host about every mount\'s paths at once, and about each path once', async () => {
    // Answers that take a turn of the event loop, as the thread pool's do, counted while in flight.
    let inFlight = 0;
    let most = 0;
    const asked = new Map<string, number>();
    const slow = <T>(path: string, answer: () => Promise<T>) => {
      asked.set(path, (asked.get(path) ?? 0) + 1);
      most = Math.max(most, ++inFlight);
      // A simulated call length of one turn, so that calls made at once overlap; not a wait.
      return new Promise<T>((resolve, reject) => setImmediate(() => {
        inFlight -= 1;
        answer().then(resolve, reject);
      }));
    };
    const counted: MountHost = {
      unavailable: () => host.unavailable(),
      selinuxEnabled: () => host.selinuxEnabled(),
      mountTable: () => host.mountTable(),
      kindOf: (path) => slow(`kind ${path}`, () => host.kindOf(path)),
      realpath: (path) => slow(`real ${path}`, () => host.realpath(path)),
    };
    const plan = await planMounts([
      mount('/var/lib/kubelet/pods/p/volumes/data', '/etc/settings', { readonly: true }),
      mount('/var/lib/kubelet/pods/p/etc-hosts', '/etc/hosts'),
      mount('/var/lib/kubelet/pods/p/volumes/data', '/var/run/secrets/kubernetes.io/serviceaccount', { readonly: true }),
    ], counted, STATE);
    expect(plan.binds.map((b) => b.target)).toEqual(['/etc/settings', '/etc/hosts', '/run/secrets/kubernetes.io/serviceaccount']);
    expect(most).toBeGreaterThanOrEqual(12);
    expect([...asked].filter(([, n]) => n > 1)).toEqual([]);
  });

  it('makes /dev/termination-log in an overlay on /dev, binding back what is mounted below /dev', async () => {
    const plan = await planMounts([mount('/var/lib/kubelet/pods/p/containers/c/0', '/dev/termination-log')], host, STATE);
    expect(plan.overlays).toEqual([{ at: '/dev', rebind: ['pts', 'shm'], create: [{ rel: 'termination-log', kind: 'file' }] }]);
    expect(plan.binds).toMatchObject([{ target: '/dev/termination-log' }]);
    expect(plan.createOnHost).toEqual([]);
  });

  it('puts the mount points below one directory in one overlay, unless a mount lies between them', async () => {
    const volume = '/var/lib/kubelet/pods/p/volumes/data';
    const plan = await planMounts([
      mount(volume, '/var/run/secrets/kubernetes.io/serviceaccount'),
      mount(volume, '/run/lock/app/x'),
      mount(volume, '/run/user/0/app'),
      mount(volume, '/run/app'),
    ], host.add('/run/lock/app'), STATE);
    expect(plan.overlays).toEqual([
      {
        at: '/run',
        rebind: ['user', 'lock'],
        create: [
          { rel: 'app', kind: 'directory' },
          { rel: 'secrets', kind: 'directory' },
          { rel: 'secrets/kubernetes.io', kind: 'directory' },
          { rel: 'secrets/kubernetes.io/serviceaccount', kind: 'directory' },
        ],
      },
      { at: '/run/lock/app', rebind: [], create: [{ rel: 'x', kind: 'directory' }] },
      { at: '/run/user/0', rebind: [], create: [{ rel: 'app', kind: 'directory' }] },
    ]);
    // Through the /var/run symlink: the real path is mounted on.
    expect(plan.binds.map((b) => b.target)).toContain('/run/secrets/kubernetes.io/serviceaccount');
  });

  it('folds an existing directory between the overlay and the mount point into the overlay, with its mode and owner', async () => {
    const plan = await planMounts([mount('/etc/hosts', '/opt/a/file'), mount('/etc/hosts', '/opt/tools/bin/b')], host.add('/opt/tools/bin'), STATE);
    expect(plan.overlays).toEqual([{
      at: '/opt',
      rebind: [],
      create: [
        { rel: 'a', kind: 'directory' },
        { rel: 'a/file', kind: 'file' },
        { rel: 'tools', kind: 'directory', copyFrom: '/opt/tools' },
        { rel: 'tools/bin', kind: 'directory', copyFrom: '/opt/tools/bin' },
        { rel: 'tools/bin/b', kind: 'file' },
      ],
    }]);
  });

  it.each([
    ['/data/x', '/data'],
    ['/var/lib/kubelet-ts/new/x', '/var/lib/kubelet-ts/new'],
  ])('makes %s on the host when its nearest existing ancestor is / or holds the state directory (outermost: %s)', async (path) => {
    const plan = await planMounts([mount('/var/lib/kubelet/pods/p/volumes/data', path)], host, STATE);
    expect(plan.overlays).toEqual([]);
    expect(plan.createOnHost).toEqual([{ path, kind: 'directory', where: 'host' }]);
  });

  it('refuses a mount point a symlink in the enclosing volume would take out of it', async () => {
    const volume = '/var/lib/kubelet/pods/p/volumes/data';
    host.add(`${volume}/escape`);
    host.links.set(`${volume}/escape`, '/etc');
    await expect(planMounts([mount(volume, '/srv'), mount('/etc/hosts', '/srv/escape/new')], host.add('/srv'), STATE))
      .rejects.toMatchObject({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' });
  });

  it.each<[string, () => Mount[], string]>([
    ['when mount namespaces are unavailable', () => { host.reasonUnavailable = 'no CAP_SYS_ADMIN'; return [mount('/etc/hosts', '/etc/hosts')]; }, 'no CAP_SYS_ADMIN'],
    ['a missing host path', () => [mount('/nowhere', '/data')], 'does not exist'],
    ['a file onto a directory', () => [mount('/etc/hosts', '/dev/shm')], 'file'],
    ['a directory onto a file', () => [mount('/dev/shm', '/etc/hosts')], 'directory'],
    ['Bidirectional propagation', () => [mount('/run/lock', '/data', { propagation: 'PROPAGATION_BIDIRECTIONAL' })], 'Bidirectional'],
    ['HostToContainer from a private mount', () => [mount('/dev/shm', '/data', { propagation: 'PROPAGATION_HOST_TO_CONTAINER' })], '"/dev/shm"'],
    ['SELinux relabelling with SELinux on', () => { host.selinux = true; return [mount('/etc/hosts', '/etc/hosts', { selinux_relabel: true })]; }, 'SELinux'],
    ['a relative container path', () => [mount('/etc/hosts', 'etc/hosts')], 'absolute'],
    ['a relative host path', () => [mount('etc/hosts', '/etc/hosts')], 'absolute'],
    ['the root directory', () => [mount('/dev/shm', '/')], 'root'],
    ['two mounts at one container path', () => [mount('/etc/hosts', '/etc/hosts'), mount('/etc/hosts', '/etc//hosts/')], 'same container path'],
    ['a mount point to make in /proc', () => [mount('/etc/hosts', '/proc/klt/x')], 'proc'],
    ['a mount point below a file', () => [mount('/etc/hosts', '/etc/hosts/x')], 'not a directory'],
  ])('refuses %s with KLT_ERR_CRI_INVALID_ARGUMENT naming the mount', async (_what, mounts, word) => {
    const ms = mounts();
    const err = await planMounts(ms, host, STATE).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' });
    const last = ms[ms.length - 1]!;
    for (const part of [last.host_path, last.container_path, word]) expect((err as Error).message).toContain(part);
  });

  it('accepts SELinux relabelling where SELinux is off (nothing to relabel, as containerd) and HostToContainer from a shared or slave mount', async () => {
    host.mounts.push({ mountPoint: '/mnt/slave', fsType: 'ext4', propagation: 'slave' });
    await expect(planMounts([
      mount('/etc/hosts', '/etc/hosts', { selinux_relabel: true }),
      mount('/run/lock', '/data', { propagation: 'PROPAGATION_HOST_TO_CONTAINER' }),
      mount('/mnt/slave', '/data2', { propagation: 'PROPAGATION_HOST_TO_CONTAINER' }),
    ], host.add('/mnt/slave'), STATE)).resolves.toMatchObject({ binds: [{}, {}, {}] });
  });
});
