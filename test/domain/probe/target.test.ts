import { describe, expect, it } from 'vitest';
import type { Container, Probe } from '../../../src/domain/pod/types.js';
import {
  canonicalHeaderKey,
  formatProbeUrl,
  probeRequestHeaders,
  probeUserAgent,
  resolveContainerPort,
  resolveProbeTarget,
} from '../../../src/domain/probe/target.js';

const container: Container = {
  name: 'web',
  image: 'nginx',
  ports: [{ name: 'http', containerPort: 8080 }, { name: 'admin', containerPort: 9090 }],
  env: [{ name: 'FILE', value: '/tmp/healthy' }, { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
};
const addresses = { podIP: '10.0.0.5', hostIP: '192.168.1.2', containerId: 'abc' };

describe('resolveContainerPort', () => {
  it.each([
    [8081, 8081],
    ['http', 8080],
    ['admin', 9090],
    ['7070', 7070],
    ['nope', 'port nope not found'],
    [0, 'invalid port number: 0'],
    [70000, 'invalid port number: 70000'],
    ['-1', 'invalid port number: -1'],
  ] as [number | string, number | string][])('resolves %j to %j', (port, expected) => {
    expect(resolveContainerPort(port, container)).toBe(expected);
  });
});

describe('resolveProbeTarget', () => {
  it('sends httpGet to the pod IP by default, with the default path, scheme and headers', () => {
    expect(resolveProbeTarget({ httpGet: { port: 'http' } }, container, addresses)).toEqual({
      kind: 'httpGet',
      url: 'http://10.0.0.5:8080/',
      headers: { 'User-Agent': [probeUserAgent()], Accept: ['*/*'] },
      timeoutSeconds: 1,
    });
  });

  it('honours the host, scheme, path with query, headers and timeout of an httpGet probe', () => {
    const target = resolveProbeTarget(
      {
        httpGet: { port: 9090, host: 'example.test', scheme: 'HTTPS', path: 'healthz?full=1', httpHeaders: [{ name: 'x-token', value: 'a' }, { name: 'X-Token', value: 'b' }] },
        timeoutSeconds: 4,
      },
      container,
      addresses,
    );
    expect(target).toEqual({
      kind: 'httpGet',
      url: 'https://example.test:9090/healthz?full=1',
      headers: { 'X-Token': ['a', 'b'], 'User-Agent': [probeUserAgent()], Accept: ['*/*'] },
      timeoutSeconds: 4,
    });
  });

  it('falls back to the host IP, then loopback, when the pod has no IP', () => {
    expect(resolveProbeTarget({ tcpSocket: { port: 80 } }, container, { ...addresses, podIP: '' })).toMatchObject({ host: '192.168.1.2' });
    expect(resolveProbeTarget({ tcpSocket: { port: 80 } }, container, { podIP: '', containerId: 'abc' })).toMatchObject({ host: '127.0.0.1' });
  });

  it('resolves a tcpSocket probe by port name and explicit host', () => {
    expect(resolveProbeTarget({ tcpSocket: { port: 'admin', host: 'db' }, timeoutSeconds: 2 }, container, addresses)).toEqual({
      kind: 'tcpSocket',
      host: 'db',
      port: 9090,
      timeoutSeconds: 2,
    });
  });

  it('expands $(VAR) in exec commands from literal env values only', () => {
    expect(resolveProbeTarget({ exec: { command: ['cat', '$(FILE)', '$(SECRET)', '$(MISSING)', '$$(FILE)'] } }, container, addresses)).toEqual({
      kind: 'exec',
      containerId: 'abc',
      command: ['cat', '/tmp/healthy', '', '$(MISSING)', '$(FILE)'],
      timeoutSeconds: 1,
    });
  });

  it('sends gRPC probes to the pod IP, asking about the whole server when no service is named', () => {
    expect(resolveProbeTarget({ grpc: { port: 50051 } }, container, addresses)).toEqual({
      kind: 'grpc', host: '10.0.0.5', port: 50051, service: '', timeoutSeconds: 1,
    });
  });

  it('sends gRPC probes to the pod IP with the service name', () => {
    expect(resolveProbeTarget({ grpc: { port: 50051, service: 'health' } }, container, addresses)).toEqual({
      kind: 'grpc',
      host: '10.0.0.5',
      port: 50051,
      service: 'health',
      timeoutSeconds: 1,
    });
  });

  it.each([
    [{ httpGet: { port: 'missing' } }, 'port missing not found'],
    [{ tcpSocket: { port: 0 } }, 'invalid port number: 0'],
    [{ grpc: { port: 70000 } }, 'invalid port number: 70000'],
    // The API says int32, but a manifest's JSON can carry a name here: the check does not trust the type.
    [{ grpc: { port: 'grpc' } } as unknown as Probe, 'invalid port number: grpc'],
    [{}, 'missing probe handler for container web'],
  ])('makes %j unresolvable', (probe, reason) => {
    expect(resolveProbeTarget(probe, container, addresses)).toEqual({ kind: 'unresolvable', reason });
  });
});

describe('formatProbeUrl', () => {
  it.each([
    ['http', '10.0.0.1', 80, '/', 'http://10.0.0.1:80/'],
    ['http', 'fd00::1', 8080, '/ready', 'http://[fd00::1]:8080/ready'],
    ['http', 'h', 1, 'http://elsewhere/x?y=1', 'http://h:1/x?y=1'],
    ['https', 'h', 443, 'a/b', 'https://h:443/a/b'],
  ])('formats %s %s %i %s as %s', (scheme, host, port, path, url) => {
    expect(formatProbeUrl(scheme, host, port, path)).toBe(url);
  });
});

describe('probeRequestHeaders', () => {
  it('keeps a User-Agent and Accept set by the probe', () => {
    expect(probeRequestHeaders([{ name: 'user-agent', value: 'mine' }, { name: 'accept', value: 'text/plain' }])).toEqual({
      'User-Agent': ['mine'],
      Accept: ['text/plain'],
    });
  });

  it('removes Accept when the probe sets it empty', () => {
    expect(probeRequestHeaders([{ name: 'Accept', value: '' }])).toEqual({ 'User-Agent': [probeUserAgent()] });
  });

  it('names the Kubernetes minor version in the User-Agent', () => {
    expect(probeUserAgent()).toMatch(/^kube-probe\/1\.\d+$/);
  });
});

describe('canonicalHeaderKey', () => {
  it.each([
    ['content-type', 'Content-Type'],
    ['X-CUSTOM-header', 'X-Custom-Header'],
    ['host', 'Host'],
    ['bad header', 'bad header'],
  ])('canonicalises %s as %s', (name, key) => {
    expect(canonicalHeaderKey(name)).toBe(key);
  });
});
