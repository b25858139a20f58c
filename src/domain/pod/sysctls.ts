/**
 * The sysctl admit handler (Go: pkg/kubelet/sysctl, allowlist.go, namespace.go, safe_sysctls.go):
 * a pod may set, in spec.securityContext.sysctls, only the safe sysctls and those the node allows
 * (allowedUnsafeSysctls, names or prefixes ending in `*`), and a net.* or IPC sysctl only when it
 * does not share that namespace with the host. Anything else is refused with reason
 * SysctlForbidden and Go's message (`forbidden sysctl: "kernel.msgmax" not allowlisted`). A name
 * may use `/` as separator (`net/ipv4/ip_local_port_range`); it is compared in dotted form. Pure.
 *
 * The safe set is Go v1.26's plus ip_local_reserved_ports (v1.27); later versions add sysctls
 * gated on the kernel version, which are not here.
 */
import { KubeletError } from '../errors.js';
import type { Pod } from './types.js';

export const SYSCTL_FORBIDDEN_REASON = 'SysctlForbidden';

/** Namespaced and isolated: no influence on other pods of the node. */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports',
];

export type SysctlNamespace = 'ipc' | 'net';

const namespaced: Record<string, SysctlNamespace> = { 'kernel.sem': 'ipc' };
const namespacedPrefixes: [string, SysctlNamespace][] = [['kernel.shm', 'ipc'], ['kernel.msg', 'ipc'], ['fs.mqueue.', 'ipc'], ['net.', 'net']];

/** Go's NamespacedBy: the kernel namespace a sysctl (or prefix) lives in, undefined when it is not known to be namespaced. */
export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  return namespaced[name] ?? namespacedPrefixes.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** Go's ConvertSysctlVariableToDotsSeparator: a name whose first separator is `/` has `.` and `/` swapped. */
export function toDottedSysctl(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

export interface SysctlAllowlist {
  sysctls: Map<string, SysctlNamespace>;
  prefixes: Map<string, SysctlNamespace>;
}

/** Go's NewAllowlist over the safe sysctls and the node's allowed unsafe ones; a pattern not known to be namespaced is an error. */
export function sysctlAllowlist(allowedUnsafe: readonly string[]): SysctlAllowlist {
  const list: SysctlAllowlist = { sysctls: new Map(), prefixes: new Map() };
  for (const pattern of [...SAFE_SYSCTLS, ...allowedUnsafe]) {
    const dotted = toDottedSysctl(pattern);
    const prefixed = dotted.endsWith('*');
    const name = prefixed ? dotted.slice(0, -1) : dotted;
    const ns = sysctlNamespace(name);
    if (ns === undefined) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `the sysctls ${JSON.stringify(pattern)} are not known to be namespaced`);
    (prefixed ? list.prefixes : list.sysctls).set(name, ns);
  }
  return list;
}

/** Go's validateSysctl: undefined when allowed, else why not. */
function sysctlProblem(list: SysctlAllowlist, rawName: string, hostNet: boolean, hostIPC: boolean): string | undefined {
  const name = toDottedSysctl(rawName);
  const ns = list.sysctls.get(name) ?? [...list.prefixes].find(([prefix]) => name.startsWith(prefix))?.[1];
  if (ns === undefined) return `${JSON.stringify(name)} not allowlisted`;
  if ((ns === 'ipc' && hostIPC) || (ns === 'net' && hostNet)) return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
  return undefined;
}

export type SysctlAdmission = { admit: true } | { admit: false; reason: string; message: string };

/** The admit handler: the first sysctl of the pod that is not allowed refuses it. */
export function admitSysctls(pod: Pod, list: SysctlAllowlist): SysctlAdmission {
  for (const sysctl of pod.spec.securityContext?.sysctls ?? []) {
    const problem = sysctlProblem(list, sysctl.name, pod.spec.hostNetwork === true, pod.spec.hostIPC === true);
    if (problem !== undefined) return { admit: false, reason: SYSCTL_FORBIDDEN_REASON, message: `forbidden sysctl: ${problem}` };
  }
  return { admit: true };
}
