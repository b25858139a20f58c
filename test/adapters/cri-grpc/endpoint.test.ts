import { describe, expect, it } from 'vitest';
import { parseCriEndpoint } from '../../../src/adapters/cri-grpc/endpoint.js';
import { KubeletError } from '../../../src/domain/errors.js';

describe('parseCriEndpoint', () => {
  it('accepts unix:///absolute/path and keeps the socket path', () => {
    const ep = parseCriEndpoint('unix:///run/containerd/containerd.sock');
    expect(ep.socketPath).toBe('/run/containerd/containerd.sock');
    expect(ep.target).toBe('unix:///run/containerd/containerd.sock');
  });

  it.each([
    ['a bare path', '/run/containerd/containerd.sock'],
    ['tcp', 'tcp://127.0.0.1:1234'],
    ['npipe', 'npipe:////./pipe/containerd-containerd'],
    ['a relative unix path', 'unix://run/containerd.sock'],
    ['an empty string', ''],
  ])('rejects %s with KLT_ERR_CRI_ENDPOINT_INVALID naming the endpoint', (_what, endpoint) => {
    let caught: unknown;
    try { parseCriEndpoint(endpoint); } catch (err) { caught = err; }
    expect(caught).toBeInstanceOf(KubeletError);
    expect((caught as KubeletError).code).toBe('KLT_ERR_CRI_ENDPOINT_INVALID');
    expect((caught as KubeletError).message).toContain(JSON.stringify(endpoint));
  });
});
