/**
 * The sandbox's port mappings (kubecontainer.MakePortMappings over every regular container).
 * Every declared port is passed on, hostPort 0 included (the CNI portmap plugin ignores those); a
 * port whose name (or, unnamed, whose family/protocol/hostIP/ports) repeats within a container is
 * dropped, as Go does.
 */
import type { Container, Pod } from '../pod/types.js';
import type { CriPortMapping, CriProtocol } from './cri-config.js';

function runtimeProtocol(protocol: string | undefined): CriProtocol {
  return protocol === 'UDP' || protocol === 'SCTP' ? protocol : 'TCP';
}

export function containerPortMappings(container: Container): CriPortMapping[] {
  const seen = new Set<string>();
  const mappings: CriPortMapping[] = [];
  for (const p of container.ports ?? []) {
    const hostIP = p.hostIP ?? '';
    const family = hostIP === '' ? 'any' : hostIP.includes(':') ? 'v6' : 'v4';
    const name = p.name || `${family}-${p.protocol ?? ''}-${hostIP}:${p.containerPort}:${p.hostPort ?? 0}`;
    if (seen.has(name)) continue;
    seen.add(name);
    mappings.push({ protocol: runtimeProtocol(p.protocol), container_port: p.containerPort, host_port: p.hostPort ?? 0, host_ip: hostIP });
  }
  return mappings;
}

export function podPortMappings(pod: Pod): CriPortMapping[] {
  return pod.spec.containers.flatMap(containerPortMappings);
}
