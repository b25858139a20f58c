/**
 * From a CreateContainer config's mounts to the steps that give the container its own view of them
 * (plan first, execute later: mount-namespace.ts writes the steps into the script that runs them).
 * The same plan is made at CreateContainer, to refuse there what cannot be honoured (the kubelet then
 * reports CreateContainerError), and again at StartContainer, against the host as it is by then.
 *
 * The container sees the host's file system, so a container path that does not exist on the host needs
 * a mount point made for it, and making one must not leave anything behind on the host where that can
 * be helped:
 * - below another of the container's mounts (a volume): in that volume, as runc does;
 * - else, below its nearest existing ancestor directory A: an overlay is mounted over A in the
 *   container's namespace (upper directory in the container's shim directory), the mount point is made
 *   in the upper directory, and the mounts below A are bound back on top. The host's A is untouched;
 *   the container's own writes directly into A go to the upper directory (removed with the container).
 *   This is how /dev/termination-log appears without a file in the host's /dev (a devtmpfs, shared by
 *   every mount namespace).
 * - else, when A is `/` (an overlay cannot replace the root of a namespace the container shares) or
 *   contains the state directory (an overlay's upper directory cannot lie inside its lower one): on the
 *   host, recorded in the container's record (`mount_points_created_on_host`) and left there.
 *
 * Propagation: the namespace is a slave of the host's, so nothing mounted in it reaches the host.
 * PRIVATE binds are made rprivate; HOST_TO_CONTAINER binds rslave, which needs the host path's mount to
 * be shared or a slave itself (containerd's check); BIDIRECTIONAL would need the container's mounts to
 * reach the host, which a slave namespace cannot do, so it is refused.
 */
import { basename, dirname, isAbsolute, join, normalize, relative } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import type { Mount__Output as Mount } from '../../../generated/runtime/v1/Mount.js';
import type { MountHost, PathKind } from './mount-host.js';
import { isSameOrBelow, type MountTable } from '../../host/mount-info.js';

export type MountPointKind = 'directory' | 'file';

export interface BindStep {
  hostPath: string;
  containerPath: string;
  /** Where to bind in the namespace: container_path, or the real path of the mount point made for it. */
  target: string;
  readonly: boolean;
  propagation: 'rprivate' | 'rslave';
  /**
   * Whether mount(8) may make it in one call with the binds around it, from a table in fstab's format
   * (mount-namespace.ts). That mode skips an entry it finds mounted already (the same source at the
   * target), which would drop this bind's read-only and propagation options; so a bind whose target
   * is a mount point, or lies below another bind (which may bring one there), gets a call of its own.
   */
  batchable: boolean;
}

export interface OverlayStep {
  /** The existing directory (a real path) the overlay covers. */
  at: string;
  /** Entries of `at` with mounts at or below them: bound back from the original on top of the overlay. */
  rebind: string[];
  /**
   * What to make in the upper directory, parents first: paths relative to `at`. An entry with
   * `copyFrom` stands for an existing directory (of the lower layer) and takes its mode and owner,
   * as an upper directory's attributes are what the container sees.
   */
  create: { rel: string; kind: MountPointKind; copyFrom?: string }[];
}

export interface HostMountPoint {
  path: string;
  kind: MountPointKind;
  /** `volume`: inside another mount's host path (`within`), checked not to leave it. */
  where: 'host' | 'volume';
  within?: string;
}

export interface MountPlan {
  overlays: OverlayStep[];
  createOnHost: HostMountPoint[];
  binds: BindStep[];
}

/** File systems an overlay cannot take as its lower layer. */
const NO_OVERLAY_FS_TYPES = new Set([
  'proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts', 'mqueue', 'securityfs', 'debugfs', 'tracefs', 'bpf',
  'configfs', 'fusectl', 'pstore', 'efivarfs', 'nsfs', 'autofs', 'binfmt_misc',
]);
/** Characters an overlay's lowerdir/upperdir/workdir option cannot carry unescaped. */
const OVERLAY_OPTION_UNSAFE = /[,:\\]/;

export function mountRefused(mount: Pick<Mount, 'host_path' | 'container_path'>, why: string): KubeletError {
  return new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `cannot mount host path ${JSON.stringify(mount.host_path)} at container path ${JSON.stringify(mount.container_path)}: ${why}`);
}

interface Missing {
  bind: BindStep;
  mount: Mount;
  /** Real path of the nearest existing ancestor directory. */
  ancestor: string;
  tail: string[];
  kind: MountPointKind;
}

/**
 * The plan for `mounts`, or a KLT_ERR_CRI_INVALID_ARGUMENT naming the first mount that cannot be
 * honoured and why. `upperRoot` is where the overlays' upper directories will be (the state directory).
 */
export async function planMounts(mounts: readonly Mount[], realHost: MountHost, upperRoot: string): Promise<MountPlan> {
  const plan: MountPlan = { overlays: [], createOnHost: [], binds: [] };
  if (mounts.length === 0) return plan;
  const unavailable = realHost.unavailable();
  if (unavailable) throw mountRefused(mounts[0]!, unavailable);
  // Parents before children (containerd sorts by path depth too), so a mount below another lands in it.
  const ordered = mounts.map((m) => ({ m, target: checkPaths(m) })).sort((a, b) => depth(a.target) - depth(b.target));
  const host = askingAhead(realHost, ordered.map(({ m, target }) => ({ source: m.host_path, target })));
  const table = await host.mountTable();
  const missing: Missing[] = [];
  const boundSources = new Map<string, string>();
  for (const { m, target } of ordered) {
    if (boundSources.has(target)) throw mountRefused(m, 'another mount has the same container path');
    if (m.selinux_relabel && host.selinuxEnabled()) throw mountRefused(m, 'SELinux relabelling is not supported by the embedded runtime');
    if (m.propagation === 'PROPAGATION_BIDIRECTIONAL') {
      throw mountRefused(m, 'Bidirectional propagation is not supported by the embedded runtime: its mount namespaces are slaves of the host\'s, so mounts made in a container cannot reach the host');
    }
    const sourceKind = await host.kindOf(m.host_path);
    if (!sourceKind) throw mountRefused(m, 'the host path does not exist');
    const source = await host.realpath(m.host_path);
    if (m.propagation === 'PROPAGATION_HOST_TO_CONTAINER') checkReceivesFromHost(m, source, table);
    const bind: BindStep = {
      hostPath: m.host_path,
      containerPath: m.container_path,
      target,
      readonly: m.readonly,
      propagation: m.propagation === 'PROPAGATION_HOST_TO_CONTAINER' ? 'rslave' : 'rprivate',
      batchable: false,
    };
    const wanted: MountPointKind = sourceKind === 'directory' ? 'directory' : 'file';
    const volume = deepestAbove(target, boundSources);
    if (volume) {
      // Below another of the container's mounts: what is there is that mount's host path.
      const inVolume = join(volume.source, relative(volume.target, target));
      const kind = await host.kindOf(inVolume);
      if (kind) checkKinds(m, sourceKind, kind);
      else plan.createOnHost.push(await volumeMountPoint(m, host, inVolume, volume.source, wanted));
    } else {
      const kind = await host.kindOf(target);
      if (kind) checkKinds(m, sourceKind, kind);
      else missing.push(await locateMissing(m, host, bind, wanted));
      // A mount point made for it is new and empty; an existing target may be mounted on already.
      bind.batchable = !kind || !table.isMountPoint(await host.realpath(target));
    }
    boundSources.set(target, source);
    plan.binds.push(bind);
  }
  placeMountPoints(plan, missing, table, upperRoot);
  return plan;
}

/**
 * `host` with its answers about paths asked once each, and all that a plan may need asked at once,
 * before the plan looks at any: the mount table, each mount's source (kind and real path) and
 * target (the same, and the kind of every directory above it, which only a missing mount point
 * needs: a few stats more, side by side, cost less than one more turn of the loop). On the thread
 * pool each answer waits for a turn of the event loop: asked one after another, a container with a
 * Secret, a ConfigMap and a `kube-api-access` volume would wait for some twenty turns, long ones in
 * a burst of pods.
 */
function askingAhead(host: MountHost, mounts: readonly { source: string; target: string }[]): MountHost {
  const kinds = new Map<string, Promise<PathKind | undefined>>();
  const realPaths = new Map<string, Promise<string>>();
  const kindOf = (path: string) => {
    let kind = kinds.get(path);
    if (kind === undefined) kinds.set(path, (kind = host.kindOf(path)));
    return kind;
  };
  const realpathOf = (path: string) => {
    let real = realPaths.get(path);
    if (real === undefined) {
      realPaths.set(path, (real = host.realpath(path)));
      real.catch(() => undefined); // asked ahead: a failure counts only where the plan awaits it
    }
    return real;
  };
  const table = host.mountTable();
  table.catch(() => undefined);
  for (const { source, target } of mounts) {
    for (const path of [source, target]) {
      void kindOf(path);
      void realpathOf(path);
    }
    for (let dir = dirname(target); dir !== dirname(dir); dir = dirname(dir)) void kindOf(dir);
  }
  return {
    unavailable: () => host.unavailable(),
    selinuxEnabled: () => host.selinuxEnabled(),
    mountTable: () => table,
    kindOf,
    realpath: realpathOf,
  };
}

/** container_path, normalized; refuses what cannot be a bind target at all. */
function checkPaths(m: Mount): string {
  if (!isAbsolute(m.container_path)) throw mountRefused(m, 'the container path must be absolute');
  if (!isAbsolute(m.host_path)) throw mountRefused(m, 'the host path must be absolute');
  const target = normalize(m.container_path).replace(/(.)\/+$/, '$1');
  if (target === '/') throw mountRefused(m, 'the container shares the host\'s root directory, which cannot be mounted over');
  return target;
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function checkKinds(m: Mount, source: PathKind, target: PathKind): void {
  if (source === target) return;
  throw mountRefused(m, source === 'directory'
    ? 'the host path is a directory and the container path is not: a directory can only be mounted onto a directory'
    : 'the host path is a file and the container path is a directory: a file can only be mounted onto a file');
}

function checkReceivesFromHost(m: Mount, source: string, table: MountTable): void {
  const on = table.mountOf(source);
  if (on && (on.propagation === 'shared' || on.propagation === 'slave')) return;
  throw mountRefused(m, `HostToContainer propagation needs the host path's mount ${JSON.stringify(on?.mountPoint ?? '/')} to be shared or a slave, and it is private`);
}

function deepestAbove(target: string, bound: ReadonlyMap<string, string>): { target: string; source: string } | undefined {
  let found: { target: string; source: string } | undefined;
  for (const [at, source] of bound) {
    if (at !== target && isSameOrBelow(target, at) && (!found || at.length > found.target.length)) found = { target: at, source };
  }
  return found;
}

/** A mount point to make inside a volume, refused when the way there leaves the volume (a symlink the container may have planted). */
async function volumeMountPoint(m: Mount, host: MountHost, path: string, volume: string, kind: MountPointKind): Promise<HostMountPoint> {
  let existing = dirname(path);
  while (existing !== volume && (await host.kindOf(existing)) === undefined) existing = dirname(existing);
  const real = await host.realpath(existing).catch(() => existing);
  if (!isSameOrBelow(real, volume)) throw mountRefused(m, `making its mount point would leave the enclosing mount's host path ${JSON.stringify(volume)} (through a symlink)`);
  return { path, kind, where: 'volume', within: volume };
}

async function locateMissing(m: Mount, host: MountHost, bind: BindStep, kind: MountPointKind): Promise<Missing> {
  const tail = [basename(bind.target)];
  let existing = dirname(bind.target);
  while ((await host.kindOf(existing)) === undefined) {
    tail.unshift(basename(existing));
    existing = dirname(existing);
  }
  if ((await host.kindOf(existing)) !== 'directory') throw mountRefused(m, `its mount point cannot be made: ${JSON.stringify(existing)} is not a directory`);
  const ancestor = await host.realpath(existing);
  bind.target = join(ancestor, ...tail);
  return { bind, mount: m, ancestor, tail, kind };
}

/** Assigns each missing mount point to an overlay (one per ancestor unless a mount separates them) or to the host. */
function placeMountPoints(plan: MountPlan, missing: Missing[], table: MountTable, upperRoot: string): void {
  missing.sort((a, b) => depth(a.ancestor) - depth(b.ancestor));
  for (const item of missing) {
    const { ancestor, tail, kind, mount } = item;
    if (ancestor === '/' || isSameOrBelow(upperRoot, ancestor)) {
      plan.createOnHost.push({ path: join(ancestor, ...tail), kind, where: 'host' });
      continue;
    }
    const fsType = table.mountOf(ancestor)?.fsType ?? '';
    if (NO_OVERLAY_FS_TYPES.has(fsType)) throw mountRefused(mount, `its mount point cannot be made in ${JSON.stringify(ancestor)}, a ${fsType} file system`);
    if (OVERLAY_OPTION_UNSAFE.test(ancestor) || OVERLAY_OPTION_UNSAFE.test(upperRoot)) {
      throw mountRefused(mount, `its mount point cannot be made in ${JSON.stringify(ancestor)}: an overlay mount cannot name a path with ',' ':' or '\\'`);
    }
    let overlay = plan.overlays.find((o) => isSameOrBelow(ancestor, o.at) && !hasMountBetween(table, o.at, ancestor));
    if (!overlay) {
      overlay = { at: ancestor, rebind: rebindEntries(table, ancestor), create: [] };
      plan.overlays.push(overlay);
    }
    const steps = relative(overlay.at, ancestor).split('/').filter(Boolean);
    for (let i = 1; i <= steps.length; i++) {
      const rel = steps.slice(0, i).join('/');
      addCreate(overlay, { rel, kind: 'directory', copyFrom: join(overlay.at, rel) });
    }
    for (let i = 1; i <= tail.length; i++) {
      const rel = [...steps, ...tail.slice(0, i)].join('/');
      addCreate(overlay, { rel, kind: i === tail.length ? kind : 'directory' });
    }
  }
}

function addCreate(overlay: OverlayStep, entry: OverlayStep['create'][number]): void {
  if (!overlay.create.some((c) => c.rel === entry.rel)) overlay.create.push(entry);
}

/** A mount point strictly below `outer` and at or above `inner`: an overlay at `outer` would not reach `inner`. */
function hasMountBetween(table: MountTable, outer: string, inner: string): boolean {
  return table.mountPointsBelow(outer).some((m) => isSameOrBelow(inner, m));
}

function rebindEntries(table: MountTable, dir: string): string[] {
  const entries: string[] = [];
  for (const point of table.mountPointsBelow(dir)) {
    const entry = relative(dir, point).split('/')[0]!;
    if (!entries.includes(entry)) entries.push(entry);
  }
  return entries;
}
