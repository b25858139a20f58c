/**
 * Resolving a probe handler into a concrete target (Go: prober.runProbe, probe.ResolveContainerPort,
 * httpprobe.NewRequestForHTTPGetAction). Pure: the probers in src/adapters/probers do the I/O.
 */
import type { Container, EnvVar, HTTPHeader, Probe } from '../pod/types.js';
import { KUBERNETES_VERSION } from '../config/version.js';
import { expand, mappingFor } from '../runtime/expansion.js';
import { probeTiming } from './defaults.js';
import type { ProbeTarget } from './types.js';

export interface ProbeAddresses {
  /** The pod's primary IP ('' when the runtime gave none). */
  podIP: string;
  /** The node's IP; used when the pod has no IP of its own (see hostForProbe). */
  hostIP?: string;
  /** The running container, for exec probes. */
  containerId: string;
}

/** Resolves the probe's one handler; problems become an `unresolvable` target (an `unknown` attempt). */
export function resolveProbeTarget(probe: Probe, container: Container, addresses: ProbeAddresses): ProbeTarget {
  const { timeoutSeconds } = probeTiming(probe);
  if (probe.exec) {
    return {
      kind: 'exec',
      containerId: addresses.containerId,
      command: expandCommandOnlyStatic(probe.exec.command ?? [], container.env ?? []),
      timeoutSeconds,
    };
  }
  if (probe.httpGet) {
    const port = resolveContainerPort(probe.httpGet.port, container);
    if (typeof port === 'string') return { kind: 'unresolvable', reason: port };
    const scheme = (probe.httpGet.scheme ?? 'HTTP').toLowerCase();
    const host = probe.httpGet.host || hostForProbe(addresses);
    return {
      kind: 'httpGet',
      url: formatProbeUrl(scheme, host, port, probe.httpGet.path || '/'),
      headers: probeRequestHeaders(probe.httpGet.httpHeaders ?? []),
      timeoutSeconds,
    };
  }
  if (probe.tcpSocket) {
    const port = resolveContainerPort(probe.tcpSocket.port, container);
    if (typeof port === 'string') return { kind: 'unresolvable', reason: port };
    return { kind: 'tcpSocket', host: probe.tcpSocket.host || hostForProbe(addresses), port, timeoutSeconds };
  }
  if (probe.grpc) {
    // A number only: the gRPC action has no named ports (Go's API validation rejects anything else).
    const port = typeof probe.grpc.port === 'number' ? validPort(probe.grpc.port) : `invalid port number: ${String(probe.grpc.port)}`;
    if (typeof port === 'string') return { kind: 'unresolvable', reason: port };
    // Go's gRPC probe has no host field: it always dials the pod IP.
    return { kind: 'grpc', host: hostForProbe(addresses), port, service: probe.grpc.service ?? '', timeoutSeconds };
  }
  return { kind: 'unresolvable', reason: `missing probe handler for container ${container.name}` };
}

/**
 * Where a probe goes when its handler names no host: the pod IP, as in Go. kubelet-ts differs when
 * the pod has no IP (the embedded runtime runs host processes and reports none): the node's IP, then
 * loopback, where Go would dial ":port" (the local host) too.
 */
export function hostForProbe(addresses: Pick<ProbeAddresses, 'podIP' | 'hostIP'>): string {
  return addresses.podIP || addresses.hostIP || '127.0.0.1';
}

/**
 * A port by number, or by the name of one of the container's ports, or a number written as a string
 * (Go's "last ditch effort"). Returns the port, or an error message.
 */
export function resolveContainerPort(port: number | string, container: Container): number | string {
  let resolved: number;
  if (typeof port === 'number') {
    resolved = port;
  } else {
    const named = container.ports?.find((p) => p.name === port);
    if (named) {
      resolved = named.containerPort;
    } else if (/^[+-]?\d+$/.test(port)) {
      resolved = Number(port);
    } else {
      return `port ${port} not found`;
    }
  }
  return validPort(resolved);
}

/** The port if it is one (1–65535), else the error message. */
function validPort(port: number): number | string {
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : `invalid port number: ${port}`;
}

/** Go's formatURL: the path is parsed as a URL reference and its scheme and host replaced. */
export function formatProbeUrl(scheme: string, host: string, port: number, path: string): string {
  const hostPort = joinHostPort(host, port);
  const reference = new URL(path, 'http://placeholder.invalid');
  return `${scheme}://${hostPort}${reference.pathname}${reference.search}`;
}

/** Go's net.JoinHostPort: an IPv6 literal goes in brackets (unless it already is). */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** `kube-probe/<major>.<minor>` of the Kubernetes version we follow (Go: userAgent("probe")). */
export function probeUserAgent(): string {
  const [major = '0', minor = '0'] = KUBERNETES_VERSION.replace(/^v/, '').split('.');
  return `kube-probe/${major}.${minor}`;
}

/**
 * The probe's headers as Go sends them (newProbeRequest): names canonicalised, User-Agent
 * `kube-probe/x.y` and `Accept: *\/*` unless the probe sets them; an Accept set to '' is removed.
 */
export function probeRequestHeaders(httpHeaders: HTTPHeader[]): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (const { name, value } of httpHeaders) {
    const key = canonicalHeaderKey(name);
    (headers[key] ??= []).push(value);
  }
  if (!('User-Agent' in headers)) headers['User-Agent'] = [probeUserAgent()];
  if (!('Accept' in headers)) headers['Accept'] = ['*/*'];
  else if ((headers['Accept']?.[0] ?? '') === '') delete headers['Accept'];
  return headers;
}

/** Go's textproto.CanonicalMIMEHeaderKey: "content-type" → "Content-Type"; names with invalid bytes stay as written. */
export function canonicalHeaderKey(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name;
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-');
}

/** Go's ExpandContainerCommandOnlyStatic: $(VAR) from the container's literal env values only. */
export function expandCommandOnlyStatic(command: string[], env: EnvVar[]): string[] {
  const values = new Map(env.map((e) => [e.name, e.value ?? '']));
  const mapping = mappingFor(values);
  return command.map((arg) => expand(arg, mapping));
}
