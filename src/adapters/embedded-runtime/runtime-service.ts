/**
 * The embedded runtime's identity and health (Version, Status) and the pod IP it reports. The RPCs
 * proper are split by concern: sandboxes.ts, containers.ts, exec.ts, stats.ts (over the records of
 * runtime-state.ts, with processes.ts for signals); grpc-handlers.ts maps them onto gRPC.
 */
import { networkInterfaces } from 'node:os';
import { KUBELET_TS_VERSION } from '../../domain/config/version.js';
import type { StatusResponse } from '../../generated/runtime/v1/StatusResponse.js';
import type { VersionResponse } from '../../generated/runtime/v1/VersionResponse.js';

export const EMBEDDED_RUNTIME_NAME = 'kubelet-ts-embedded';
/** The runtime is part of kubelet-ts, so it carries kubelet-ts's version (containerd reports its own). */
export const EMBEDDED_RUNTIME_VERSION = KUBELET_TS_VERSION;

/** The host's first non-internal IPv4 address, else loopback. */
export function hostPodIP(): string {
  for (const infos of Object.values(networkInterfaces())) {
    for (const info of infos ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return '127.0.0.1';
}

export function version(): VersionResponse {
  // `version` is the CRI's own API version string, which containerd also answers with 0.1.0.
  return { version: '0.1.0', runtime_name: EMBEDDED_RUNTIME_NAME, runtime_version: EMBEDDED_RUNTIME_VERSION, runtime_api_version: 'v1' };
}

/** `podCIDR`: the last UpdateRuntimeConfig's, shown in the verbose info (host network: nothing uses it). */
export function status(stateDir: string, verbose: boolean, podCIDR = ''): StatusResponse {
  const conditions = [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    // Host network only: there is no CNI to wait for, so the network is always ready.
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ];
  const info: Record<string, string> = verbose
    ? { config: JSON.stringify({ stateDir, isolation: 'none', network: 'host', podCIDR }) }
    : {};
  // Its one handler, the default, with neither recursive read-only mounts nor user namespaces.
  const runtime_handlers = [{ name: '', features: { recursive_read_only_mounts: false, user_namespaces: false } }];
  return { status: { conditions }, info, runtime_handlers };
}
