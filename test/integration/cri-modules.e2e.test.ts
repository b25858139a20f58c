/**
 * On a runtime's socket the daemon speaks CRI without grpc-js and without parsing the proto: its
 * calls go on a bare HTTP/2 client (http2-unary-client.ts) and its codec is built from the
 * descriptor generated at build time (proto.ts). grpc-js stays for what needs it (the embedded
 * runtime's server, the gRPC prober, a plugin's client, and the two gRPC servers every kubelet
 * serves: the device plugins' Registration and the pod resources API), and none of those is loaded
 * before its first use: the two servers' sockets listen from start, their servers wait for a first
 * connection (grpc-front.ts). No proto text is parsed at run time at all (proto-loader generates the
 * types at build time). Checked on the
 * tsc-built binary against containerd, with the resolve hook of test/support/module-log, up to the
 * supervisor's `running` (the CRI client has connected and asked the runtime's version by then).
 */
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { modulesUntilRunning } from '../support/module-log/modules-until-running.js';
import { containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

const BIN = resolve('dist/src/bin/kubelet.js');

describeNeeding(containerdPart(), 'the daemon\'s CRI modules on containerd', () => {
  it('loads the CRI client and its codec, and neither grpc-js nor proto-loader nor the embedded runtime', async () => {
    const loaded = await modulesUntilRunning(BIN, containerdEndpoint(), ['--debug-address=', '--healthz-port=0', '--enable-server=false']);
    expect(loaded).toEqual(expect.arrayContaining([
      'dist/src/adapters/cri-grpc/http2-unary-client.js', 'dist/src/adapters/cri-grpc/proto.js', 'dist/src/generated/cri-descriptor.js',
    ]));
    expect(loaded.filter((m) => m.startsWith('node_modules/@grpc/'))).toEqual([]);
    // The device plugins' socket and the pod resources API are served by then, behind their fronts.
    expect(loaded).toEqual(expect.arrayContaining(['dist/src/adapters/h2/grpc-front.js', 'dist/src/adapters/pod-resources/server.js']));
    expect(loaded.filter((m) => m.includes('/adapters/embedded-runtime/') || m.endsWith('/cri-grpc/grpc-js-client.js'))).toEqual([]);
  }, 30_000);
});
