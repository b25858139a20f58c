/**
 * `?only_cpu_and_memory=true`: the summary cut down to what the Go kubelet's GetCPUAndMemoryStats
 * returns (metrics-server's request): node and system containers' cpu and memory, the node's swap
 * (Go has kept it since swap stats came in), each pod's and container's cpu and memory, no file systems.
 */
import type { ContainerStats, Summary } from './summary-types.js';

function containerCpuAndMemory(c: ContainerStats): ContainerStats {
  return { name: c.name, startTime: c.startTime, ...(c.cpu ? { cpu: c.cpu } : {}), ...(c.memory ? { memory: c.memory } : {}) };
}

export function cpuAndMemoryOnly(summary: Summary): Summary {
  const { node } = summary;
  return {
    node: {
      nodeName: node.nodeName,
      ...(node.systemContainers ? { systemContainers: node.systemContainers.map(containerCpuAndMemory) } : {}),
      startTime: node.startTime,
      ...(node.cpu ? { cpu: node.cpu } : {}),
      ...(node.memory ? { memory: node.memory } : {}),
      ...(node.swap ? { swap: node.swap } : {}),
    },
    pods: summary.pods.map((p) => ({
      podRef: p.podRef,
      startTime: p.startTime,
      containers: p.containers.map(containerCpuAndMemory),
      ...(p.cpu ? { cpu: p.cpu } : {}),
      ...(p.memory ? { memory: p.memory } : {}),
    })),
  };
}
