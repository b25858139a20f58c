import { describe, expect, it } from 'vitest';
import { kubeletReservedPorts } from '../../../src/domain/runtime/reserved-ports.js';

describe('kubeletReservedPorts', () => {
  it('names the kubelet server, read-only, healthz and debug server ports', () => {
    expect(kubeletReservedPorts({ port: 10250, readOnlyPort: 10255, healthzPort: 10248 }, '127.0.0.1:10260')).toEqual([
      { port: 10250, owner: 'kubelet\'s server port (port)' },
      { port: 10255, owner: 'kubelet\'s read-only port (readOnlyPort)' },
      { port: 10248, owner: 'kubelet\'s healthz port (healthzPort)' },
      { port: 10260, owner: 'kubelet\'s debug server port (--debug-address)' },
    ]);
  });

  it('leaves out what is off: a port 0, an empty --debug-address; reads an IPv6 debug address', () => {
    expect(kubeletReservedPorts({ port: 10250, readOnlyPort: 0, healthzPort: 0 }, '').map((r) => r.port)).toEqual([10250]);
    expect(kubeletReservedPorts({ port: 10250, readOnlyPort: 0, healthzPort: 0 }, '[::1]:6060').map((r) => r.port)).toEqual([10250, 6060]);
  });
});
