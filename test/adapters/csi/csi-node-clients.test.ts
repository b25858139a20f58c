import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { createCsiNodeClients, isFinalStatus } from '../../../src/adapters/csi/csi-node-clients.js';
import { grpcErrorText } from '../../../src/adapters/csi/grpc-status-text.js';

const statusError = (code: grpc.status, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new grpc.Metadata() });

describe('the CSI Node clients', () => {
  it('word a failed call as Go prints a gRPC status', () => {
    expect(grpcErrorText(statusError(grpc.status.NOT_FOUND, 'no volume 9'))).toBe('rpc error: code = NotFound desc = no volume 9');
    expect(grpcErrorText(statusError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'))).toBe('rpc error: code = DeadlineExceeded desc = Deadline exceeded');
    expect(grpcErrorText(new Error('plain'))).toBe('plain');
  });

  it('tell a final answer from one after which the driver may still be working', () => {
    expect(isFinalStatus(statusError(grpc.status.NOT_FOUND, ''))).toBe(true);
    expect(isFinalStatus(statusError(grpc.status.INVALID_ARGUMENT, ''))).toBe(true);
    for (const code of [grpc.status.DEADLINE_EXCEEDED, grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.ABORTED, grpc.status.RESOURCE_EXHAUSTED]) {
      expect(isFinalStatus(statusError(code, ''))).toBe(false);
    }
    expect(isFinalStatus(new Error('no status'))).toBe(false);
  });

  it('refuse a driver that is not registered, in Go\'s words', () => {
    const clients = createCsiNodeClients({ get: () => undefined, list: () => [] });
    expect(() => clients.get('drv.example.com')).toThrow('driver name drv.example.com not found in the list of registered CSI drivers');
    clients.close();
  });

  it('reject with a mapped error when the driver\'s socket is gone', async () => {
    const clients = createCsiNodeClients({ get: (name) => ({ name, endpoint: '/nonexistent/csi.sock', versions: ['1.0.0'], nodeId: 'n', maxVolumesPerNode: 0 }), list: () => [] }, 2_000);
    await expect(clients.get('d').capabilities()).rejects.toMatchObject({ code: 'KLT_ERR_VOLUME_MOUNT', retryable: true, message: expect.stringMatching(/^rpc error: code = (Unavailable|DeadlineExceeded) desc = /) });
    clients.close();
  });
});
