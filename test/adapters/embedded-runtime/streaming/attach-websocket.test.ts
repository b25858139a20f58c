/**
 * Attach through the embedded runtime: the container's live output from its shim's attach socket,
 * and for a container created with stdin (stdin_once), the client's input, whose end closes the
 * container's stdin. The output still reaches the CRI log.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChannels } from './channel-client.js';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fx: RuntimeFixture;

beforeAll(async () => {
  fx = await startRuntimeFixture();
});
afterAll(async () => fx?.stop());

async function attachUrl(containerId: string, streams: { stdin?: boolean; stderr?: boolean; tty?: boolean } = {}): Promise<string> {
  return (await fx.call<{ url: string }>('Attach', { container_id: containerId, stdout: true, stderr: true, ...streams })).url;
}

describe('attach over WebSocket', () => {
  it('streams the output produced from now on, on stdout and stderr', async () => {
    // A tick each 0.1 s: the container's pace, so there is output from whenever attach joins.
    const { containerId } = await fx.runContainer('ticker', ['sh', '-c', 'i=0; while :; do echo "tick $i"; echo "tock $i" >&2; i=$((i+1)); sleep 0.1; done']);
    const client = await connectChannels(await attachUrl(containerId), ['v5.channel.k8s.io']);
    await expect.poll(() => client.text(1).split('\n').length, { timeout: 5000 }).toBeGreaterThan(4);
    const ticks = client.text(1).split('\n').filter((l) => l !== '');
    const first = Number(ticks[0]!.split(' ')[1]);
    ticks.forEach((line, i) => expect(line).toBe(`tick ${first + i}`));
    expect(client.text(2)).toMatch(/^tock \d+\n/);
    client.ws.close();
    await client.closed;
    // The log has it all, attach or not.
    const log = await readFile(join(fx.dir, 'logs', 'ticker', 'ticker', '0.log'), 'utf8');
    expect(log).toContain(`stdout F tick ${first}\n`);
  });

  it('feeds stdin to a container created with stdin; stdin_once closes it when the attach ends', async () => {
    const { containerId } = await fx.runContainer('reader', ['sh', '-c', 'while read l; do echo "got $l"; echo "err $l" >&2; done; echo bye; exit 7'], { stdin: true, stdin_once: true });
    const client = await connectChannels(await attachUrl(containerId, { stdin: true }), ['v5.channel.k8s.io']);
    client.send(0, 'a\nb');
    client.send(0, '\n');
    await expect.poll(() => client.text(1), { timeout: 5000 }).toBe('got a\ngot b\n');
    client.closeChannel(0);
    expect(await client.closed).toBe(1000);
    expect(client.text(1)).toBe('got a\ngot b\nbye\n');
    expect(client.text(2)).toBe('err a\nerr b\n');
    // An attach reports success; the exit code is the container's status.
    expect(JSON.parse(client.text(3))).toEqual({ metadata: {}, status: 'Success' });
    await expect.poll(async () => (await fx.cri.runtime.containerStatus(containerId)).status?.exit_code, { timeout: 5000 }).toBe(7);
  });

  it('two attaches see the same output', async () => {
    // Prints when told to, then stays up for the second attach; the test stops it.
    const { containerId } = await fx.runContainer('twice', ['sh', '-c', 'read go; seq 1 2000; sleep 3600'], { stdin: true });
    const a = await connectChannels(await attachUrl(containerId, { stdin: false }), ['v4.channel.k8s.io']);
    const b = await connectChannels(await attachUrl(containerId, { stdin: true }), ['v4.base64.channel.k8s.io']);
    b.send(0, 'go\n');
    const expected = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join('');
    await expect.poll(() => a.text(1), { timeout: 5000 }).toBe(expected);
    await expect.poll(() => b.text(1), { timeout: 5000 }).toBe(expected);
    a.ws.close();
    b.ws.close();
  });

  it('refuses a TTY with UNIMPLEMENTED, naming what is missing', async () => {
    // A container that stays up for the attach; the test stops it.
    const { containerId } = await fx.runContainer('tty', ['sh', '-c', 'sleep 3600'], { tty: true, stdin: true });
    const err = await attachUrl(containerId, { stdin: true, stderr: false, tty: true }).catch((e: unknown) => e) as { code: number; details: string };
    expect(err.code).toBe(GrpcStatus.UNIMPLEMENTED);
    expect(err.details).toMatch(/cannot attach with a TTY/);
  });
});
