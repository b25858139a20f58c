/**
 * run.cgroupRoots: the cgroup names the container manager will use, computed from the config the
 * way the Go kubelet does in run() and cm.NewContainerManager, plus the cgroup checks of
 * ValidateKubeletConfiguration (repeated here so this phase stands on its own; the messages are
 * Go's, so a config that passed validation passes here).
 *
 * Names: the Go kubelet keeps a cgroup name as components (`CgroupName`, e.g. ["kubepods",
 * "burstable"]) and renders it per driver: cgroupfs `/kubepods/burstable`, systemd
 * `/kubepods.slice/kubepods-burstable.slice`. --cgroup-root is read in cgroupfs form for both
 * drivers (Go: ParseCgroupfsToCgroupName); --kube-reserved-cgroup and --system-reserved-cgroup are
 * read in the driver's form (Go: cgroupManager.CgroupName).
 *
 * Pure: no cgroup is read or created in this phase. The Go kubelet also checks here that
 * --cgroup-root exists in every mounted subsystem (cgroupManager.Validate) and creates the QoS
 * cgroups later in containerManager.Start; kubelet-ts does neither yet (the embedded runtime runs
 * processes without cgroups), which is the main difference from Go at this point.
 */
import { KubeletError } from '../errors.js';

/** The config fields this phase reads (names as in KubeletConfiguration). */
export interface CgroupConfig {
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  cgroupDriver: string;
  enforceNodeAllocatable: readonly string[];
  kubeReservedCgroup: string;
  systemReservedCgroup: string;
  kubeletCgroups: string;
  systemCgroups: string;
  /** --runtime-cgroups (a flag, not in the config file); passed through. */
  runtimeCgroups?: string;
}

export type CgroupDriver = 'cgroupfs' | 'systemd';

export interface CgroupName {
  /** Go's CgroupName: the path as components; [] is the root. */
  components: string[];
  /** Rendered for the configured driver. */
  name: string;
}

export interface CgroupRoots {
  driver: CgroupDriver;
  /** The effective --cgroup-root (cgroupfs form); "/" when cgroupsPerQOS defaulted it. */
  cgroupRoot: string;
  /** True when --cgroup-root was empty and defaulted to "/" (Go logs this at info). */
  cgroupRootDefaulted: boolean;
  /** Where pods live: <cgroupRoot>/kubepods with cgroupsPerQOS, else <cgroupRoot> itself. */
  nodeAllocatableRoot: CgroupName;
  /** QoS cgroups (only with cgroupsPerQOS): Guaranteed pods sit directly in the node-allocatable root. */
  qos: { guaranteed: CgroupName; burstable: CgroupName; bestEffort: CgroupName } | null;
  enforceNodeAllocatable: string[];
  kubeReservedCgroup: CgroupName | null;
  systemReservedCgroup: CgroupName | null;
  /** cgroupfs paths, passed through (Go uses them as given, for either driver). */
  kubeletCgroups: string;
  systemCgroups: string;
  runtimeCgroups: string;
}

/** Go's defaultNodeAllocatableCgroupName. */
const NODE_ALLOCATABLE_CGROUP = 'kubepods';
const ENFORCE_PODS = 'pods';
const ENFORCE_SYSTEM_RESERVED = 'system-reserved';
const ENFORCE_KUBE_RESERVED = 'kube-reserved';
const ENFORCE_NONE = 'none';

/** Go's ParseCgroupfsToCgroupName. */
export function parseCgroupfsName(name: string): string[] {
  const components = name.replace(/^\//, '').split('/');
  return components.length === 1 && components[0] === '' ? [] : components;
}

/** Go's ParseSystemdToCgroupName: the last path element, minus `.slice`, split on '-', '_' back to '-'. */
export function parseSystemdName(name: string): string[] {
  const base = name.split('/').filter((s) => s !== '').pop() ?? '';
  const slice = base.replace(/\.slice$/, '');
  if (slice === '' || slice === '-') return [];
  return slice.split('-').map((part) => part.replace(/_/g, '-'));
}

export function toCgroupfs(components: readonly string[]): string {
  return `/${components.join('/')}`;
}

/**
 * Go's CgroupName.ToSystemd: components escaped ('-' → '_'), joined with '-', then systemd's slice
 * expansion (`a-b.slice` → `/a.slice/a-b.slice`). Throws on names systemd would reject (an empty
 * component, as in `--cgroup-root=/a//b`); Go panics there.
 */
export function toSystemd(components: readonly string[]): string {
  if (components.length === 0 || (components.length === 1 && components[0] === '')) return '/';
  const slice = components.map((c) => c.replace(/-/g, '_')).join('-');
  let path = '';
  let prefix = '';
  for (const part of slice.split('-')) {
    if (part === '' || part.includes('/')) throw new Error(`invalid slice name: ${slice}.slice`);
    path += `/${prefix}${part}.slice`;
    prefix += `${part}-`;
  }
  return path;
}

/** The cgroup checks of ValidateKubeletConfiguration (Go's messages), plus the driver name. */
export function validateCgroupConfig(config: CgroupConfig): string[] {
  const errors: string[] = [];
  if (!config.cgroupsPerQOS && config.enforceNodeAllocatable.length > 0) {
    errors.push('invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true');
  }
  if (config.systemCgroups !== '' && config.cgroupRoot === '') {
    errors.push('invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  }
  for (const key of config.enforceNodeAllocatable) {
    switch (key) {
      case ENFORCE_PODS:
        break;
      case ENFORCE_SYSTEM_RESERVED:
        if (config.systemReservedCgroup === '') {
          errors.push(`invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "${ENFORCE_SYSTEM_RESERVED}" contained in enforceNodeAllocatable (--enforce-node-allocatable)`);
        }
        break;
      case ENFORCE_KUBE_RESERVED:
        if (config.kubeReservedCgroup === '') {
          errors.push(`invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "${ENFORCE_KUBE_RESERVED}" contained in enforceNodeAllocatable (--enforce-node-allocatable)`);
        }
        break;
      case ENFORCE_NONE:
        if (config.enforceNodeAllocatable.length > 1) {
          errors.push(`invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "${ENFORCE_NONE}" is specified`);
        }
        break;
      default:
        errors.push(`invalid configuration: option ${JSON.stringify(key)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "${ENFORCE_PODS}", "${ENFORCE_SYSTEM_RESERVED}", "${ENFORCE_KUBE_RESERVED}", or "${ENFORCE_NONE}"`);
    }
  }
  // Not a Go validation message: Go's cgroup manager silently treats any other value as cgroupfs.
  if (config.cgroupDriver !== 'cgroupfs' && config.cgroupDriver !== 'systemd') {
    errors.push(`invalid configuration: cgroupDriver (--cgroup-driver) ${JSON.stringify(config.cgroupDriver)} must be "cgroupfs" or "systemd"`);
  }
  return errors;
}

/**
 * The phase: validate, default --cgroup-root to "/" when cgroupsPerQOS is on (Go's run()), and
 * derive the names. Throws KLT_ERR_CONFIG_INVALID listing every problem, joined by "; ".
 */
export function computeCgroupRoots(config: CgroupConfig): CgroupRoots {
  const errors = validateCgroupConfig(config);
  if (errors.length > 0) throw new KubeletError('KLT_ERR_CONFIG_INVALID', errors.join('; '));
  const driver = config.cgroupDriver as CgroupDriver;
  const cgroupRootDefaulted = config.cgroupsPerQOS && config.cgroupRoot === '';
  const cgroupRoot = cgroupRootDefaulted ? '/' : config.cgroupRoot;

  const named = (components: string[]): CgroupName => {
    try {
      return { components, name: driver === 'systemd' ? toSystemd(components) : toCgroupfs(components) };
    } catch (err) {
      throw new KubeletError('KLT_ERR_CONFIG_INVALID', `invalid configuration: cgroup name ${JSON.stringify(toCgroupfs(components))} cannot be expressed for the systemd cgroup driver`, { cause: err });
    }
  };
  const driverForm = (name: string): CgroupName | null =>
    name === '' ? null : named(driver === 'systemd' ? parseSystemdName(name) : parseCgroupfsName(name));

  const rootComponents = parseCgroupfsName(cgroupRoot);
  const allocatable = config.cgroupsPerQOS ? [...rootComponents, NODE_ALLOCATABLE_CGROUP] : rootComponents;
  const nodeAllocatableRoot = named(allocatable);
  const qos = config.cgroupsPerQOS
    ? {
        guaranteed: nodeAllocatableRoot,
        burstable: named([...allocatable, 'burstable']),
        bestEffort: named([...allocatable, 'besteffort']),
      }
    : null;
  return {
    driver,
    cgroupRoot,
    cgroupRootDefaulted,
    nodeAllocatableRoot,
    qos,
    enforceNodeAllocatable: [...config.enforceNodeAllocatable],
    kubeReservedCgroup: driverForm(config.kubeReservedCgroup),
    systemReservedCgroup: driverForm(config.systemReservedCgroup),
    kubeletCgroups: config.kubeletCgroups,
    systemCgroups: config.systemCgroups,
    runtimeCgroups: config.runtimeCgroups ?? '',
  };
}
