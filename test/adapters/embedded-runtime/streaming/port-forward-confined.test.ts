/**
 * Port forward on the embedded runtime reaches only what the pod declares: its pods share the
 * host's network, so any other port is some other local service's. Three TCP servers on 127.0.0.1
 * stand in for a port the pod declares, a port it does not (declared as UDP only), and the
 * kubelet's own server (declared by the pod, and reserved all the same); over WebSocket and SPDY,
 * only the first is reached, and a refusal says why on the port's error stream.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialSpdy } from '../../../support/spdy-client.js';
import { collect } from '../../stream-protocols/spdy/collect.js';
import { connectChannels } from './channel-client.js';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

interface Listener { server: Server; port: number; connections: number }

/** A TCP server on 127.0.0.1 that counts its connections and greets each with `name`. */
async function listen(name: string): Promise<Listener> {
  const listener: Listener = { server: createServer((socket) => {
    listener.connections++;
    socket.on('error', () => undefined);
    socket.end(name);
  }), port: 0, connections: 0 };
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  listener.port = (listener.server.address() as AddressInfo).port;
  return listener;
}

let fx: RuntimeFixture;
let sandboxId: string;
let declared: Listener;
let undeclared: Listener;
let kubelet: Listener;

beforeAll(async () => {
  [declared, undeclared, kubelet] = await Promise.all([listen('declared'), listen('undeclared'), listen('kubelet')]);
  fx = await startRuntimeFixture({ reservedPorts: [{ port: kubelet.port, owner: 'kubelet\'s server port (port)' }] });
  // A sandbox that stays up for the port-forwards to reach; the test stops it.
  ({ sandboxId } = await fx.runContainer('web', ['sh', '-c', 'sleep 3600'], {}, {
    port_mappings: [
      { protocol: 'TCP', container_port: declared.port, host_port: 0, host_ip: '' },
      { protocol: 'UDP', container_port: undeclared.port, host_port: 0, host_ip: '' },
      { protocol: 'TCP', container_port: kubelet.port, host_port: 0, host_ip: '' },
    ],
  }));
});
afterAll(async () => {
  await fx?.stop();
  for (const l of [declared, undeclared, kubelet]) l?.server.close();
});

async function forwardUrl(ports: number[] = []): Promise<string> {
  return (await fx.call<{ url: string }>('PortForward', { pod_sandbox_id: sandboxId, port: ports })).url;
}

/** Forwards `port` over WebSocket (named in the CRI request, as the kubelet passes it on): what came back on the data and error channels. */
async function overWebSocket(port: number): Promise<{ data: string; error: string }> {
  const client = await connectChannels(await forwardUrl([port]), ['v4.channel.k8s.io']);
  await client.closed;
  return { data: client.bytes(0).subarray(2).toString(), error: client.bytes(1).subarray(2).toString() };
}

/** Forwards `port` over SPDY (the port in the streams' headers, as kubectl sends it). */
async function overSpdy(port: number): Promise<{ data: string; error: string }> {
  const url = new URL(await forwardUrl());
  const { client } = await dialSpdy({ port: Number(url.port), path: url.pathname, protocols: ['portforward.k8s.io'] });
  try {
    const error = client!.openStream({ streamType: 'error', port: String(port), requestID: '0' });
    const data = client!.openStream({ streamType: 'data', port: String(port), requestID: '0' });
    data.end();
    const [errorText, carried] = await Promise.all([collect(error), collect(data)]);
    return { data: carried.toString(), error: errorText.toString() };
  } finally {
    client!.socket.destroy();
  }
}

const undeclaredRefusal = (port: number) =>
  `error forwarding port ${port} to pod ${sandboxId}, uid : pod default/web declares no TCP containerPort ${port} (it declares ${[declared.port, kubelet.port].sort((a, b) => a - b).join(', ')}): ` +
  'the embedded runtime, whose pods share the host\'s network, forwards only the ports a pod declares';
const reservedRefusal = (port: number, owner: string) =>
  `error forwarding port ${port} to pod ${sandboxId}, uid : port ${port} is the ${owner}: the embedded runtime, whose pods share the host's network, never forwards to the node's own services`;

describe.each([['WebSocket', overWebSocket], ['SPDY', overSpdy]] as const)('port forward over %s on the embedded runtime', (_name, forward) => {
  it('reaches a port the pod declares', async () => {
    const before = declared.connections;
    expect(await forward(declared.port)).toEqual({ data: 'declared', error: '' });
    expect(declared.connections).toBe(before + 1);
  });

  it('refuses a port the pod does not declare (a TCP listener on 127.0.0.1), saying so on the error stream', async () => {
    expect(await forward(undeclared.port)).toEqual({ data: '', error: undeclaredRefusal(undeclared.port) });
    expect(undeclared.connections).toBe(0);
  });

  it('refuses the kubelet\'s own port even though the pod declares it', async () => {
    expect(await forward(kubelet.port)).toEqual({ data: '', error: reservedRefusal(kubelet.port, 'kubelet\'s server port (port)') });
    expect(kubelet.connections).toBe(0);
  });

  it('refuses the runtime\'s own streaming server', async () => {
    const own = Number(new URL(fx.runtime.streamingUrl).port);
    expect((await forward(own)).error).toBe(reservedRefusal(own, 'embedded runtime\'s streaming server'));
  });
});
