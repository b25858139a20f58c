/**
 * Exec through the embedded runtime's streaming server over WebSocket, end to end: CRI Exec hands
 * out a URL, a `ws` client speaks each channel.k8s.io variant to it, and real host processes run
 * behind it (a real pseudo-terminal under -t).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChannels, type ChannelClient } from './channel-client.js';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fx: RuntimeFixture;
let containerId: string;

beforeAll(async () => {
  fx = await startRuntimeFixture();
  // A container that stays up for the exec sessions to reach; the test stops it.
  ({ containerId } = await fx.runContainer('sleeper', ['sh', '-c', 'sleep 3600']));
});
afterAll(async () => fx?.stop());

async function execUrl(cmd: string[], streams: { stdin?: boolean; stdout?: boolean; stderr?: boolean; tty?: boolean }): Promise<string> {
  const { url } = await fx.call<{ url: string }>('Exec', { container_id: containerId, cmd, stdout: true, stderr: true, ...streams });
  return url;
}

function statusOf(client: ChannelClient): { status: string; reason?: string; details?: { causes: Array<{ reason?: string; message: string }> } } {
  return JSON.parse(client.text(3));
}

describe('exec over WebSocket', () => {
  it('answers a URL on the streaming server, 127.0.0.1', async () => {
    const url = await execUrl(['true'], {});
    expect(url).toMatch(new RegExp(`^${fx.runtime.streamingUrl.replace(/\./g, '\\.')}/exec/[A-Za-z0-9_-]{11}$`));
    expect(fx.runtime.streamingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('v5: stdout, stderr, the exit code in a v4 Status, stdin half-closed with the close signal', async () => {
    const client = await connectChannels(await execUrl(['sh', '-c', 'read line; echo "out:$line"; echo err >&2; cat; exit 3'], { stdin: true }), ['v5.channel.k8s.io']);
    expect(client.protocol).toBe('v5.channel.k8s.io');
    client.send(0, 'hello\nrest of input');
    client.closeChannel(0);
    expect(await client.closed).toBe(1000);
    expect(client.text(1)).toBe('out:hello\nrest of input');
    expect(client.text(2)).toBe('err\n');
    const status = statusOf(client);
    expect(status.status).toBe('Failure');
    expect(status.reason).toBe('NonZeroExitCode');
    expect(status.details?.causes).toEqual([{ reason: 'ExitCode', message: '3' }]);
    // The first message is the empty "connected" frame on stdout.
    expect(client.messages[0]).toEqual([1, Buffer.alloc(0)]);
  });

  it('v4 binary: Success status for exit 0, the output before it', async () => {
    const client = await connectChannels(await execUrl(['sh', '-c', 'echo done'], {}), ['v4.channel.k8s.io']);
    await client.closed;
    expect(client.text(1)).toBe('done\n');
    expect(statusOf(client)).toEqual({ metadata: {}, status: 'Success' });
    const statusIndex = client.messages.findIndex(([c]) => c === 3);
    const lastOutput = client.messages.map(([c]) => c).lastIndexOf(1);
    expect(statusIndex).toBeGreaterThan(lastOutput);
  });

  it('v4 base64: text messages with the channel as a digit', async () => {
    const client = await connectChannels(await execUrl(['sh', '-c', 'printf "\\001\\377bin"; exit 2'], {}), ['v4.base64.channel.k8s.io']);
    await client.closed;
    expect(client.bytes(1)).toEqual(Buffer.from([1, 255, 0x62, 0x69, 0x6e]));
    expect(statusOf(client).details?.causes[0]?.message).toBe('2');
  });

  it('pre-v4 (channel.k8s.io, base64.channel.k8s.io): the failure message as text, nothing on success', async () => {
    const failed = await connectChannels(await execUrl(['sh', '-c', 'exit 4'], {}), ['channel.k8s.io']);
    await failed.closed;
    expect(failed.text(3)).toContain('exit code 4');
    const ok = await connectChannels(await execUrl(['true'], {}), ['base64.channel.k8s.io']);
    expect(ok.protocol).toBe('base64.channel.k8s.io');
    await ok.closed;
    expect(ok.received.get(3)).toBeUndefined();
  });

  it('picks the first protocol the client offers that it speaks, and refuses when none', async () => {
    const client = await connectChannels(await execUrl(['true'], {}), ['v9.channel.k8s.io', 'v4.channel.k8s.io', 'v5.channel.k8s.io']);
    expect(client.protocol).toBe('v4.channel.k8s.io');
    await client.closed;
    await expect(connectChannels(await execUrl(['true'], {}), ['v9.channel.k8s.io'])).rejects.toThrow(/HTTP 400: requested protocol\(s\) are not supported/);
  });

  it('a command that cannot start: an InternalError status, in Go\'s and containerd\'s words', async () => {
    const client = await connectChannels(await execUrl(['/nonexistent/klt-command'], {}), ['v4.channel.k8s.io']);
    await client.closed;
    const status = JSON.parse(client.text(3)) as { status: string; reason: string; code: number; message: string };
    expect(status).toMatchObject({ status: 'Failure', reason: 'InternalError', code: 500 });
    expect(status.message).toMatch(/^Internal error occurred: error executing command in container: failed to exec in container: .*ENOENT/);
  });

  it('a token serves once', async () => {
    const url = await execUrl(['true'], {});
    const first = await connectChannels(url, ['v5.channel.k8s.io']);
    await first.closed;
    await expect(connectChannels(url, ['v5.channel.k8s.io'])).rejects.toThrow(/HTTP 404/);
  });

  it('under a TTY: a real terminal, resized by the resize channel (stty size)', async () => {
    const url = await execUrl(['sh', '-c', 'read go; stty size; exit 5'], { stdin: true, tty: true, stderr: false });
    const client = await connectChannels(url, ['v5.channel.k8s.io']);
    client.send(4, JSON.stringify({ Width: 123, Height: 45 }));
    // Two sizes in one message, split oddly: the last one wins.
    client.send(4, '{"Width":100,"Height":30}{"Wid');
    client.send(4, 'th":132,"Height":43}');
    // The server applies each size as it reads it (or, before the command starts, before its stdin is
    // read): once it answers a ping sent after them, the input that follows comes after the sizes.
    await client.roundTrip();
    client.send(0, 'go\r');
    await client.closed;
    expect(client.text(1)).toMatch(/43 132\r\n/);
    expect(client.received.get(2)).toBeUndefined();
    expect(statusOf(client).details?.causes[0]?.message).toBe('5');
  });

  it('the client going away kills the command and what it started', async () => {
    // A command and a child that would run 5 minutes: the test checks that the client's going kills both.
    const client = await connectChannels(await execUrl(['sh', '-c', 'sleep 300 & echo $$ $!; wait'], {}), ['v5.channel.k8s.io']);
    await expect.poll(() => client.text(1), { timeout: 5000 }).toMatch(/^\d+ \d+\n$/);
    const [shell, child] = client.text(1).trim().split(' ').map(Number) as [number, number];
    expect(alive(shell) && alive(child)).toBe(true);
    client.ws.terminate();
    await expect.poll(() => alive(shell) || alive(child), { timeout: 5000 }).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Mounts and user switches need root, as the runtime does to apply them.
describe.runIf(process.getuid?.() === 0)('exec over WebSocket in a container with mounts, as its user (root only)', () => {
  it('runs in the container\'s mount namespace as run_as_user, with and without a TTY', async () => {
    const { mkdtemp, writeFile, chmod } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const volume = await mkdtemp(join(fx.dir, 'vol-'));
    await chmod(volume, 0o755);
    await writeFile(join(volume, 'file'), 'from the volume\n');
    const target = `/klt-stream-test-${process.pid}`;
    // A container that stays up for the exec sessions to reach; the test stops it.
    const { containerId: mounted } = await fx.runContainer('mounted', ['sh', '-c', 'sleep 3600'], {
      mounts: [{ host_path: volume, container_path: target, readonly: true }],
      linux: { security_context: { run_as_user: { value: '4242' } } },
    });
    for (const tty of [false, true]) {
      const { url } = await fx.call<{ url: string }>('Exec', { container_id: mounted, cmd: ['sh', '-c', `cat ${target}/file; id -u`], stdout: true, stderr: !tty, tty });
      const client = await connectChannels(url, ['v5.channel.k8s.io']);
      await client.closed;
      expect(client.text(1).replace(/\r\n/g, '\n')).toBe('from the volume\n4242\n');
      expect(JSON.parse(client.text(3)).status).toBe('Success');
    }
  });
});
