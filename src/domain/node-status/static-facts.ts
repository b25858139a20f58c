/**
 * NodeStaticFacts from what the supervisor's phases already produced: run.machineInfo (MachineInfo),
 * run.containerManager (capacity and allocatable), run.preInitRuntime (the CRI Version answer),
 * runKubelet.validateNodeIP (the node IPs), and the configuration.
 */
import type { MachineInfo } from '../node/host-types.js';
import type { NodeResources } from '../resources/allocatable.js';
import type { NodeStaticFacts } from './node-status.js';

export interface StaticFactsInput {
  hostname: string;
  nodeIps: string[];
  machineInfo: MachineInfo;
  capacity: NodeResources;
  allocatable: NodeResources;
  /** CRI Version: runtime_name and runtime_version, e.g. containerd / 1.7.24. */
  runtimeName: string;
  runtimeVersion: string;
  /** e.g. v1.33.0 (our --version). */
  kubeletVersion: string;
  /** KubeletConfiguration.port (10250). */
  kubeletPort: number;
  /** KubeletConfiguration.nodeStatusMaxImages (50). */
  maxImages: number;
}

export function nodeStaticFacts(input: StaticFactsInput): NodeStaticFacts {
  const m = input.machineInfo;
  return {
    hostname: input.hostname,
    nodeIps: [...input.nodeIps],
    capacity: { ...input.capacity },
    allocatable: { ...input.allocatable },
    nodeInfo: {
      machineID: m.machineId,
      systemUUID: m.systemUuid,
      bootID: m.bootId,
      kernelVersion: m.kernelVersion,
      osImage: m.osImage,
      // Go: fmt.Sprintf("%s://%s", runtime type, version).
      containerRuntimeVersion: `${input.runtimeName}://${input.runtimeVersion}`,
      kubeletVersion: input.kubeletVersion,
      // Go 1.31+ leaves kubeProxyVersion empty (deprecated, DisableNodeKubeProxyVersion).
      kubeProxyVersion: '',
      operatingSystem: m.operatingSystem,
      architecture: m.architecture,
    },
    kubeletPort: input.kubeletPort,
    maxImages: input.maxImages,
  };
}
