/**
 * The defaults the API server applies to a core/v1 Pod (pkg/apis/core/v1/defaults.go), which the Go
 * kubelet gets for static pods by decoding manifests through the scheme. Applied to a copy; fields
 * already set are never overwritten.
 *
 * Covered: SetDefaults_Pod (requests from limits, enableServiceLinks), SetDefaults_PodSpec
 * (dnsPolicy, restartPolicy, terminationGracePeriodSeconds, securityContext, schedulerName, host
 * network ports), SetDefaults_Container (imagePullPolicy by tag, termination message path/policy),
 * SetDefaults_ContainerPort, SetDefaults_Probe, SetDefaults_HTTPGetAction, the fieldRef apiVersion,
 * and a volume without a source becoming an emptyDir.
 * Not covered (differs from Go): the defaults inside volume sources (defaultMode 0644 and the like),
 * resource claims, overhead, and the pod-level resources feature.
 */
import type { Container, HTTPGetAction, LifecycleHandler, Pod, Probe } from '../pod/types.js';
import { defaultPullPolicy } from '../runtime/image-policy.js';

export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** Volume source keys: a volume with none of these (only a name) defaults to an emptyDir. */
const NON_SOURCE_VOLUME_KEYS = new Set(['name']);

/** A deep copy of the pod with the API server's v1 defaults filled in. */
export function applyPodDefaults(input: Pod): Pod {
  const pod = structuredClone(input);
  const spec = pod.spec;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  spec.securityContext ??= {};
  spec.schedulerName ??= DEFAULT_SCHEDULER_NAME;
  spec.enableServiceLinks ??= true;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    defaultContainer(container, spec.hostNetwork === true);
  }
  for (const volume of spec.volumes ?? []) {
    if (Object.keys(volume).every((key) => NON_SOURCE_VOLUME_KEYS.has(key))) volume['emptyDir'] = {};
  }
  return pod;
}

function defaultContainer(container: Container, hostNetwork: boolean): void {
  if (typeof container.image === 'string' && container.image !== '') {
    container.imagePullPolicy ??= defaultPullPolicy(container.image);
  }
  container.terminationMessagePath ??= DEFAULT_TERMINATION_MESSAGE_PATH;
  container.terminationMessagePolicy ??= 'File';
  for (const port of container.ports ?? []) {
    port.protocol ??= 'TCP';
    // defaultHostNetworkPorts: with the host's network a container port is a host port.
    if (hostNetwork && (port.hostPort === undefined || port.hostPort === 0)) port.hostPort = port.containerPort;
  }
  // SetDefaults_Pod: a limit without a request requests the limit.
  const limits = container.resources?.limits;
  if (container.resources && limits && Object.keys(limits).length > 0) {
    const requests = (container.resources.requests ??= {});
    for (const [name, quantity] of Object.entries(limits)) requests[name] ??= quantity;
  }
  for (const env of container.env ?? []) {
    const fieldRef = env.valueFrom?.fieldRef;
    if (fieldRef) fieldRef.apiVersion ??= 'v1';
  }
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    if (probe) defaultProbe(probe);
  }
  for (const handler of [container.lifecycle?.postStart, container.lifecycle?.preStop]) {
    if (handler) defaultHandler(handler);
  }
}

function defaultProbe(probe: Probe): void {
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  defaultHandler(probe);
}

function defaultHandler(handler: LifecycleHandler | Probe): void {
  if (handler.httpGet) defaultHttpGet(handler.httpGet);
}

function defaultHttpGet(action: HTTPGetAction): void {
  action.path ??= '/';
  action.scheme ??= 'HTTP';
}
