/**
 * Typed reads of the few flags and configuration fields the start-up phases act on, in one place
 * (names as in the Go kubelet: KubeletFlags fields, KubeletConfiguration v1beta1 JSON fields).
 */
import type { LiveState } from './deps.js';
import { KubeletBug } from '../../domain/errors.js';

function flags(live: LiveState): Record<string, unknown> {
  if (!live.parsed) throw new KubeletBug('flags read before command.parse');
  return live.parsed.flags;
}

function config(live: LiveState): Record<string, unknown> {
  if (!live.config) throw new KubeletBug('configuration read before command.loadConfigFile');
  return live.config;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const bool = (v: unknown): boolean => v === true;
const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);

export const settings = {
  debugAddress: (l: LiveState) => str(flags(l).debugAddress, ''),
  rootDir: (l: LiveState) => str(flags(l).rootDirectory, '/var/lib/kubelet'),
  kubeconfig: (l: LiveState) => str(flags(l).kubeconfig, ''),
  hostnameOverride: (l: LiveState) => str(flags(l).hostnameOverride, ''),
  nodeIP: (l: LiveState) => str(flags(l).nodeIP, ''),
  cloudProvider: (l: LiveState) => str(flags(l).cloudProvider, ''),
  lockFile: (l: LiveState) => str(flags(l).lockFilePath, ''),
  exitOnLockContention: (l: LiveState) => bool(flags(l).exitOnLockContention),
  /** --event-log: not given → `<root-dir>/events/`; given empty → off (''). */
  eventLog: (l: LiveState): string => {
    if (!l.parsed?.given.includes('event-log')) return `${settings.rootDir(l).replace(/\/+$/, '')}/events/`;
    return str(flags(l).eventLog, '');
  },
  embeddedRuntimeAllowCluster: (l: LiveState) => bool(flags(l).embeddedRuntimeAllowCluster),
  runtimeEndpoint: (l: LiveState) => str(config(l).containerRuntimeEndpoint, 'unix:///run/containerd/containerd.sock'),
  imageEndpoint: (l: LiveState) => str(config(l).imageServiceEndpoint, ''),
  runtimeRequestTimeout: (l: LiveState) => str(config(l).runtimeRequestTimeout, '2m0s'),
  oomScoreAdj: (l: LiveState) => num(config(l).oomScoreAdj, -999),
  config,
};
