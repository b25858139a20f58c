/**
 * The few flags and configuration fields the start-up phases act on, read in one place (names as in
 * the Go kubelet: KubeletFlags fields, KubeletConfiguration v1beta1 JSON fields). No defaults here:
 * the command line and the configuration arrive defaulted (src/domain/config).
 */
import type { KubeletConfiguration, KubeletFlags } from '../../domain/config/types.js';
import type { LiveState } from './live-state.js';

const flags = (live: LiveState): KubeletFlags => live.parsed.require().flags;
const config = (live: LiveState): KubeletConfiguration => live.config.require();

export const settings = {
  /**
   * --debug-address. In cluster mode (a kubeconfig) the debug server answers any local user about
   * the cluster's pods, so it is off unless the flag is given; standalone it keeps its default.
   */
  debugAddress: (l: LiveState): string => {
    if (flags(l).kubeconfig !== '' && !l.parsed.require().given.includes('debug-address')) return '';
    return flags(l).debugAddress;
  },
  rootDir: (l: LiveState) => flags(l).rootDirectory,
  kubeconfig: (l: LiveState) => flags(l).kubeconfig,
  hostnameOverride: (l: LiveState) => flags(l).hostnameOverride,
  nodeIP: (l: LiveState) => flags(l).nodeIP,
  cloudProvider: (l: LiveState) => flags(l).cloudProvider,
  lockFile: (l: LiveState) => flags(l).lockFilePath,
  exitOnLockContention: (l: LiveState) => flags(l).exitOnLockContention,
  /** --event-log: not given → `<root-dir>/events/`; given empty → off (''). */
  eventLog: (l: LiveState): string => {
    if (!l.parsed.require().given.includes('event-log')) return `${settings.rootDir(l).replace(/\/+$/, '')}/events/`;
    return flags(l).eventLog;
  },
  embeddedRuntimeAllowCluster: (l: LiveState) => flags(l).embeddedRuntimeAllowCluster,
  runtimeEndpoint: (l: LiveState) => config(l).containerRuntimeEndpoint,
  imageEndpoint: (l: LiveState) => config(l).imageServiceEndpoint,
  runtimeRequestTimeout: (l: LiveState) => config(l).runtimeRequestTimeout,
  oomScoreAdj: (l: LiveState) => config(l).oomScoreAdj,
  config,
  flags,
};
