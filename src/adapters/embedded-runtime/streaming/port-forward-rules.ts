/**
 * Which ports a port forward may reach on the embedded runtime. Its pods share the host's network,
 * so a pod's port P is the host's loopback port P: with no rule, the right to port-forward to one
 * pod would reach every local service of the node, the kubelet's own servers included. (containerd
 * dials inside the pod's network namespace and needs none of this.)
 *
 * The rule: a TCP port the pod declares (a containerPort, which reaches every CRI runtime in
 * PodSandboxConfig.port_mappings: the kubelet sends each declared port, hostPort 0 included), and
 * never a reserved port (the kubelet's server, read-only, healthz and debug ports, this runtime's
 * streaming server), declared or not. Refusals use the prefix of Go's forwarding errors, since the
 * text goes to the client's error stream as it is.
 */
import type { ReservedPort } from '../../../domain/runtime/reserved-ports.js';
import type { SandboxRecord } from '../state/records.js';

export type { ReservedPort };

export class PortForwardRules {
  private readonly reserved = new Map<number, string>();

  /** `sandboxes` looks a sandbox up when a port is asked for: it may be gone by then. */
  constructor(private readonly sandboxes: (id: string) => SandboxRecord | undefined, reserved: readonly ReservedPort[] = []) {
    for (const r of reserved) this.reserve(r);
  }

  reserve(r: ReservedPort): void {
    if (r.port > 0) this.reserved.set(r.port, r.owner);
  }

  /** Why `port` of the sandbox may not be forwarded to, or null when it may. */
  refusal(sandboxId: string, port: number): string | null {
    const prefix = `error forwarding port ${port} to pod ${sandboxId}, uid : `;
    const owner = this.reserved.get(port);
    if (owner !== undefined) {
      return `${prefix}port ${port} is the ${owner}: the embedded runtime, whose pods share the host's network, never forwards to the node's own services`;
    }
    const sandbox = this.sandboxes(sandboxId);
    if (!sandbox) return `${prefix}the pod sandbox no longer exists`;
    const declared = forwardablePorts(sandbox);
    if (declared.includes(port)) return null;
    const pod = `${sandbox.metadata.namespace}/${sandbox.metadata.name}`;
    return `${prefix}pod ${pod} declares no TCP containerPort ${port} (it declares ${declared.length > 0 ? declared.join(', ') : 'none'}): ` +
      'the embedded runtime, whose pods share the host\'s network, forwards only the ports a pod declares';
  }
}

/** The sandbox's declared TCP container ports, ascending, each once. */
function forwardablePorts(sandbox: SandboxRecord): number[] {
  const ports = (sandbox.port_mappings ?? []).filter((m) => m.protocol === 'TCP').map((m) => m.container_port);
  return [...new Set(ports)].sort((a, b) => a - b);
}
