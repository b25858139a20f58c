/**
 * The flags and KubeletConfiguration fields the node side reads, with the Go defaults, as the
 * numbers createApiClients and the node status / lease machines take. Pure, so the lead's wiring
 * only passes the effective configuration and flags through.
 */
import { parseGoDuration } from '../config/duration.js';
import type { KubeletConfiguration, KubeletFlags } from '../config/types.js';
import type { Taint } from '../api/common-types.js';
import { heartbeatTimeoutMsFor } from './heartbeat-timeout.js';
import type { NodeRegistrationSpec } from './initial-node.js';

export interface NodeSideSettings {
  qps: number;
  burst: number;
  eventQps: number;
  eventBurst: number;
  heartbeatTimeoutMs: number;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  leaseDurationSeconds: number;
  maxImages: number;
  kubeletPort: number;
  registerNode: boolean;
  nodeLabels: Record<string, string>;
  registerWithTaints: Taint[];
  registerSchedulable: boolean;
  enableControllerAttachDetach: boolean;
  /** --cloud-provider=external: a cloud controller initializes the Node. */
  externalCloudProvider: boolean;
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const dur = (v: unknown, fallback: string) => parseGoDuration(typeof v === 'string' && v !== '' ? v : fallback);
const bool = (v: unknown, fallback: boolean) => (typeof v === 'boolean' ? v : fallback);

export function nodeSideSettings(config: Partial<KubeletConfiguration>, flags: Partial<KubeletFlags>): NodeSideSettings {
  const updateFrequencyMs = dur(config.nodeStatusUpdateFrequency, '10s');
  const leaseDurationSeconds = num(config.nodeLeaseDurationSeconds, 40);
  return {
    qps: num(config.kubeAPIQPS, 50),
    burst: num(config.kubeAPIBurst, 100),
    eventQps: num(config.eventRecordQPS, 50),
    eventBurst: num(config.eventBurst, 100),
    heartbeatTimeoutMs: heartbeatTimeoutMsFor(updateFrequencyMs, leaseDurationSeconds),
    updateFrequencyMs,
    reportFrequencyMs: dur(config.nodeStatusReportFrequency, '5m'),
    leaseDurationSeconds,
    maxImages: num(config.nodeStatusMaxImages, 50),
    kubeletPort: num(config.port, 10250),
    registerNode: bool(config.registerNode, true),
    nodeLabels: { ...((flags.nodeLabels as Record<string, string> | undefined) ?? {}) },
    registerWithTaints: [...((config.registerWithTaints as Taint[] | undefined) ?? [])],
    registerSchedulable: bool(flags.registerSchedulable, true),
    enableControllerAttachDetach: bool(config.enableControllerAttachDetach, true),
    externalCloudProvider: flags.cloudProvider === 'external',
  };
}

/**
 * What this kubelet registers its Node with (initial-node.ts): the settings above, the node name
 * (also the hostname label, as Go's kl.hostname after --hostname-override) and the host's OS and
 * architecture from machine info. Node registration and admission both read the node from it.
 */
export function nodeRegistrationSpec(s: NodeSideSettings, nodeName: string, host: { operatingSystem: string; architecture: string }): NodeRegistrationSpec {
  return {
    nodeName,
    hostname: nodeName,
    operatingSystem: host.operatingSystem,
    architecture: host.architecture,
    nodeLabels: s.nodeLabels,
    registerWithTaints: s.registerWithTaints,
    registerSchedulable: s.registerSchedulable,
    enableControllerAttachDetach: s.enableControllerAttachDetach,
    externalCloudProvider: s.externalCloudProvider,
  };
}
