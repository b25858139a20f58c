/**
 * The Service environment variables of a pod, as the Go kubelet builds them (kubelet_pods.go
 * getServiceEnvVarMap, pkg/kubelet/envvars FromServices):
 * - only Services whose cluster IP is set and not `None` (headless and ExternalName ones give none);
 * - the master Service (`kubernetes` in `default`) always, whatever enableServiceLinks says, since
 *   in-cluster clients find the API server by KUBERNETES_SERVICE_HOST/PORT;
 * - every Service of the pod's namespace when enableServiceLinks is true, one of the same name
 *   winning over the master Service;
 * - per Service `<NAME>` (upper case, `-` as `_`): `_SERVICE_HOST`, `_SERVICE_PORT` (the first
 *   port), `_SERVICE_PORT_<PORTNAME>` for each named port, and Docker's link variables `_PORT`
 *   (the first port's URL) and, per port, `_PORT_<port>_<PROTO>` with `_PROTO`, `_PORT`, `_ADDR`.
 * Go fills a map, so its order is random; here Services go by name, each one's variables in Go's
 * order, which keeps the result the same from run to run.
 */

export interface ServicePort {
  name?: string;
  port: number;
  /** TCP when absent (the API server defaults it). */
  protocol?: string;
}

/** What the variables read of a Service. */
export interface Service {
  metadata: { name?: string; namespace?: string };
  spec?: { clusterIP?: string; ports?: ServicePort[] };
}

/** --master-service-namespace, whose default the Go kubelet keeps to this day. */
export const MASTER_SERVICE_NAMESPACE = 'default';
/** The master Services' names in that namespace (Go's masterServices). */
export const MASTER_SERVICE_NAMES: readonly string[] = ['kubernetes'];
const MASTER_SERVICES = new Set(MASTER_SERVICE_NAMES);

/** v1helper.IsServiceIPSet: a cluster IP that is neither empty nor `None`. */
export function isServiceIPSet(service: Service): boolean {
  const ip = service.spec?.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

/** The Services a pod of `namespace` sees, by name: the master Service and, with links, its namespace's. */
export function servicesForPod(services: Iterable<Service>, namespace: string, enableServiceLinks: boolean): Service[] {
  const byName = new Map<string, Service>();
  for (const service of services) {
    if (!isServiceIPSet(service)) continue;
    const name = service.metadata.name ?? '';
    const serviceNamespace = service.metadata.namespace ?? 'default';
    if (serviceNamespace === MASTER_SERVICE_NAMESPACE && MASTER_SERVICES.has(name)) {
      if (!byName.has(name)) byName.set(name, service);
    } else if (serviceNamespace === namespace && enableServiceLinks) {
      byName.set(name, service);
    }
  }
  return [...byName.keys()].sort().map((name) => byName.get(name)!);
}

/** makeEnvVariableName: upper case, `-` as `_`. */
function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

/** net.JoinHostPort: an IPv6 address in brackets. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** FromServices for one Service: its variables, in order (none when its cluster IP is not set). */
export function envVarsFromService(service: Service): [string, string][] {
  if (!isServiceIPSet(service)) return [];
  const ip = service.spec!.clusterIP!;
  const ports = service.spec?.ports ?? [];
  const prefix = envName(service.metadata.name ?? '');
  const vars: [string, string][] = [[`${prefix}_SERVICE_HOST`, ip]];
  // A cluster IP Service has at least one port (validation); one without is given its host only.
  if (ports.length === 0) return vars;
  vars.push([`${prefix}_SERVICE_PORT`, String(ports[0]!.port)]);
  for (const p of ports) if (p.name) vars.push([`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
  ports.forEach((p, i) => {
    const protocol = p.protocol || 'TCP';
    const url = `${protocol.toLowerCase()}://${hostPort(ip, p.port)}`;
    if (i === 0) vars.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
    vars.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(p.port)], [`${portPrefix}_ADDR`, ip]);
  });
  return vars;
}

/** FromServices: each Service's variables, in order. */
export function envVarsFromServices(services: readonly Service[], varsOf: (service: Service) => readonly [string, string][] = envVarsFromService): [string, string][] {
  const vars: [string, string][] = [];
  for (const service of services) for (const v of varsOf(service)) vars.push(v);
  return vars;
}

/**
 * getServiceEnvVarMap: the variables of the Services a pod of `namespace` sees, among `services`
 * (which need hold no more than the master Services and the namespace's); `varsOf` may give each
 * Service's variables from a cache.
 */
export function serviceEnvVarMap(services: Iterable<Service>, namespace: string, enableServiceLinks: boolean, varsOf?: (service: Service) => readonly [string, string][]): Map<string, string> {
  return new Map(envVarsFromServices(servicesForPod(services, namespace, enableServiceLinks), varsOf));
}
