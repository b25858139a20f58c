import { describe, expect, it } from 'vitest';
import { hostPortTaken, podHostPorts, type HostPortUse } from '../../../src/domain/pod/host-ports.js';
import type { Pod } from '../../../src/domain/pod/types.js';

describe('podHostPorts', () => {
  it('lists the host ports of containers and sidecars, with 0.0.0.0 and TCP for what is left out', () => {
    const pod: Pod = {
      metadata: { name: 'p', uid: 'u' },
      spec: {
        initContainers: [
          { name: 'init', image: 'x', ports: [{ containerPort: 1, hostPort: 7000 }] },
          { name: 'side', image: 'x', restartPolicy: 'Always', ports: [{ containerPort: 2, hostPort: 7001, protocol: 'UDP', hostIP: '10.0.0.1' }] },
        ],
        containers: [{ name: 'main', image: 'x', ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 8081 }] }],
      },
    };
    expect(podHostPorts(pod)).toEqual([
      { hostIP: '10.0.0.1', protocol: 'UDP', port: 7001 },
      { hostIP: '0.0.0.0', protocol: 'TCP', port: 8081 },
    ]);
  });
});

describe('hostPortTaken', () => {
  const used: HostPortUse[] = [{ hostIP: '10.0.0.1', protocol: 'TCP', port: 80 }, { hostIP: '0.0.0.0', protocol: 'UDP', port: 53 }];
  it.each([
    ['the same address, protocol and port', { hostIP: '10.0.0.1', protocol: 'TCP', port: 80 }, true],
    ['0.0.0.0 against any address', { hostIP: '0.0.0.0', protocol: 'TCP', port: 80 }, true],
    ['any address against a held 0.0.0.0', { hostIP: '10.0.0.2', protocol: 'UDP', port: 53 }, true],
    ['another address', { hostIP: '10.0.0.2', protocol: 'TCP', port: 80 }, false],
    ['another protocol', { hostIP: '10.0.0.1', protocol: 'UDP', port: 80 }, false],
    ['another port', { hostIP: '0.0.0.0', protocol: 'TCP', port: 81 }, false],
    ['::, which is not the wildcard', { hostIP: '::', protocol: 'TCP', port: 80 }, false],
  ])('%s: %s', (_name, wanted, taken) => {
    expect(hostPortTaken(used, wanted)).toBe(taken);
  });
});
