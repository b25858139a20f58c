import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTerminationMessageFile,
  readTerminationMessage,
  readTerminationMessageFile,
  readTerminationMessageFromLog,
} from '../../../src/adapters/fs/termination-message-file.js';
import {
  containerTerminationMessagePathAnnotation as pathKey,
  containerTerminationMessagePolicyAnnotation as policyKey,
} from '../../../src/domain/runtime/labels.js';
import type { Random } from '../../../src/ports/random.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-termmsg-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const fixedRandom = (draw: number): Random => ({ next: () => draw });
const criLine = (i: number, stream = 'stdout', tag = 'F', content = `line ${i}`) => `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}.123456789Z ${stream} ${tag} ${content}\n`;

describe('createTerminationMessageFile', () => {
  it('creates an empty file named by the random draw, mode 0666 despite the umask, in a 0750 directory', async () => {
    const previous = process.umask(0o022);
    try {
      const path = await createTerminationMessageFile(join(dir, 'containers', 'app'), fixedRandom(0.5));
      expect(path).toBe(join(dir, 'containers', 'app', '80000000'));
      const info = statSync(path);
      expect(info.size).toBe(0);
      expect(info.mode & 0o777).toBe(0o666);
      expect(statSync(join(dir, 'containers', 'app')).mode & 0o777).toBe(0o750);
    } finally {
      process.umask(previous);
    }
  });

  it('fails with KLT_ERR_HOST_IO when the pod directory cannot hold it', async () => {
    writeFileSync(join(dir, 'containers'), '');
    await expect(createTerminationMessageFile(join(dir, 'containers', 'app'), fixedRandom(0))).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
  });
});

describe('readTerminationMessageFile', () => {
  it('reads a short file whole and a long one by its last 4096 bytes', async () => {
    writeFileSync(join(dir, 'short'), 'bye');
    writeFileSync(join(dir, 'long'), `HEAD${'x'.repeat(4096)}`);
    const short = await readTerminationMessageFile(join(dir, 'short'));
    const long = await readTerminationMessageFile(join(dir, 'long'));
    expect(short.kind === 'read' && Buffer.from(short.data).toString()).toBe('bye');
    expect(long.kind === 'read' && Buffer.from(long.data).toString()).toBe('x'.repeat(4096));
  });

  it('tells a missing file from one it cannot read', async () => {
    expect(await readTerminationMessageFile(join(dir, 'nope'))).toEqual({ kind: 'missing' });
    expect((await readTerminationMessageFile(dir)).kind).toBe('failed'); // a directory: EISDIR on read
  });
});

describe('readTerminationMessageFromLog', () => {
  it('renders the last 80 lines of both streams, partial lines joined, without timestamps', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => criLine(i, i % 2 ? 'stderr' : 'stdout'));
    writeFileSync(join(dir, '0.log'), lines.join('') + criLine(100, 'stdout', 'P', 'half ') + criLine(101, 'stdout', 'F', 'done'));
    const text = await readTerminationMessageFromLog(join(dir, '0.log'));
    const out = text.split('\n');
    expect(out[0]).toBe('line 22');
    expect(out.at(-2)).toBe('half done');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('keeps only the last 2048 bytes', async () => {
    const long = 'y'.repeat(1000);
    writeFileSync(join(dir, '0.log'), [criLine(0, 'stdout', 'F', 'first'), criLine(1, 'stdout', 'F', long), criLine(2, 'stderr', 'F', long), criLine(3, 'stdout', 'F', long), criLine(4, 'stdout', 'F', 'last')].join(''));
    const text = await readTerminationMessageFromLog(join(dir, '0.log'));
    expect(Buffer.byteLength(text)).toBe(2048);
    expect(text.endsWith(`${long}\nlast\n`)).toBe(true);
    expect(text).not.toContain('first');
  });

  it('answers Go\'s error text when the log cannot be read', async () => {
    expect(await readTerminationMessageFromLog(join(dir, 'missing.log'))).toMatch(/^Error on reading termination message from logs: /);
  });
});

describe('readTerminationMessage', () => {
  const status = (exitCode: number, policy: string, hostPath: string) => ({
    exit_code: exitCode,
    reason: exitCode === 0 ? 'Completed' : 'Error',
    annotations: { [pathKey]: '/dev/termination-log', [policyKey]: policy },
    mounts: [{ container_path: '/dev/termination-log', host_path: hostPath }],
    log_path: join(dir, '0.log'),
  });

  beforeEach(() => {
    writeFileSync(join(dir, '0.log'), criLine(1, 'stderr', 'F', 'panic: out of cheese'));
  });

  it('prefers what the container wrote to its file', async () => {
    writeFileSync(join(dir, 'msg'), 'wrote this');
    expect(await readTerminationMessage(status(1, 'FallbackToLogsOnError', join(dir, 'msg')))).toBe('wrote this');
  });

  it('falls back to the log for a failed container that wrote nothing', async () => {
    writeFileSync(join(dir, 'msg'), '');
    expect(await readTerminationMessage(status(1, 'FallbackToLogsOnError', join(dir, 'msg')))).toBe('panic: out of cheese\n');
  });

  it('does not read the log for a container that succeeded, nor under the File policy', async () => {
    writeFileSync(join(dir, 'msg'), '');
    expect(await readTerminationMessage(status(0, 'FallbackToLogsOnError', join(dir, 'msg')))).toBe('');
    expect(await readTerminationMessage(status(1, 'File', join(dir, 'gone')))).toBe('');
  });
});
