import { describe, expect, it } from 'vitest';
import { nodeStaticFacts } from '../../../src/domain/node-status/static-facts.js';

describe('nodeStaticFacts', () => {
  it('builds nodeInfo from machine info and the CRI version as <runtime>://<version>', () => {
    const resources = { cpuMillis: 1000, memoryBytes: 1, ephemeralStorageBytes: 1, pods: 110 };
    const f = nodeStaticFacts({
      hostname: 'h', nodeIps: ['10.0.0.1'], capacity: resources, allocatable: resources,
      machineInfo: {
        numCores: 1, numCoresSource: 'cpuinfo', memoryCapacityBytes: 1,
        rootFilesystem: { requestedPath: '/', statfsPath: '/', capacityBytes: 1, availableBytes: 1, inodes: 1, inodesFree: 1 },
        machineId: 'mid', systemUuid: 'uuid', bootId: 'boot', kernelVersion: '6.1.0-18-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)', operatingSystem: 'linux', architecture: 'amd64', maxPids: null,
      },
      runtimeName: 'containerd', runtimeVersion: '1.7.24', kubeletVersion: 'v1.33.0', kubeletPort: 10250, maxImages: 50,
    });
    expect(f.nodeInfo).toEqual({
      machineID: 'mid', systemUUID: 'uuid', bootID: 'boot', kernelVersion: '6.1.0-18-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.7.24', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
    });
    expect(f.nodeIps).toEqual(['10.0.0.1']);
  });
});
