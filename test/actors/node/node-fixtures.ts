/**
 * The Node the node machines' suites register (a label a kubelet may set under NodeRestriction,
 * not node-role.kubernetes.io/*; static facts of a small machine), and the two machines started
 * with their real effects on the wall clock, as the supervisor invokes them.
 */
import pino from 'pino';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { providedNodeLeaseMachine, providedNodeStatusMachine } from '../../../src/actors/node/node-machines.js';
import type { ApiClients } from '../../../src/ports/apiserver.js';
import type { NodeRegistrationSpec } from '../../../src/domain/node-status/initial-node.js';
import type { NodeStaticFacts } from '../../../src/domain/node-status/node-status.js';

export function nodeRegistration(nodeName: string): NodeRegistrationSpec {
  return {
    nodeName, hostname: nodeName, operatingSystem: 'linux', architecture: 'amd64',
    nodeLabels: { 'kubelet-ts.test/pool': 'it' }, registerWithTaints: [], registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
  };
}

export function nodeFacts(hostname: string): NodeStaticFacts {
  return {
    hostname, nodeIps: ['127.0.0.1'],
    capacity: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 50 * 2 ** 30, pods: 110 },
    allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 45 * 2 ** 30, pods: 110 },
    nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', osImage: 'o', containerRuntimeVersion: 'embedded://0.1.0', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
    kubeletPort: 10250,
    maxImages: 50,
  };
}

/** The lease and status machines on `clients`, started: the root actor and the status machine (send it the runtime's health). */
export function startNodeMachines(clients: ApiClients, nodeName: string, periods: { updateMs: number; leaseSeconds: number }): { root: AnyActorRef; status: AnyActorRef } {
  const logger = pino({ level: 'silent' });
  const images = async () => [{ repoTags: ['busybox:1.36'], repoDigests: [], sizeBytes: 4_000_000 }];
  const parent = createMachine({
    invoke: [
      { id: 'nodeLease', systemId: 'nodeLease', src: providedNodeLeaseMachine({ clients, clock: systemClock, logger }), input: { nodeName, leaseDurationSeconds: periods.leaseSeconds, jitter: 0 } },
      {
        id: 'nodeStatus', systemId: 'nodeStatus', src: providedNodeStatusMachine({ clients, listImages: images, clock: systemClock, logger }),
        input: { registration: nodeRegistration(nodeName), facts: nodeFacts(nodeName), jitter: 0, updateFrequencyMs: periods.updateMs, startedAtMs: systemClock.now() },
      },
    ],
  });
  const root = createActor(parent, { clock: systemClock });
  root.start();
  return { root, status: root.getSnapshot().children.nodeStatus as AnyActorRef };
}
