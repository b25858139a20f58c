import { describe, expect, it } from 'vitest';
import { grpcProbe } from '../../../src/adapters/probers/grpc-prober.js';

describe('grpcProbe', () => {
  it('answers unknown and says gRPC probes are not implemented', async () => {
    const outcome = await grpcProbe({ kind: 'grpc', host: '10.0.0.1', port: 50051, service: '', timeoutSeconds: 1 });
    expect(outcome.result).toBe('unknown');
    expect(outcome.output).toMatch(/not implemented/);
  });
});
