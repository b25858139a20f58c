import { describe, expect, it } from 'vitest';
import { cleanPath, makeAbsolutePath } from '../../../src/domain/runtime/absolute-path.js';
import {
  containerTerminationMessagePathAnnotation as pathKey,
  containerTerminationMessagePolicyAnnotation as policyKey,
} from '../../../src/domain/runtime/labels.js';
import {
  findTerminationMessageFile,
  lastBytes,
  maxTerminationMessageBytes,
  planTerminationMessage,
  shouldFallbackToLogs,
  terminationMessageFileName,
  terminationMessageFromFile,
  terminationMessageMount,
  terminationMessagePath,
  withTerminationMessage,
} from '../../../src/domain/runtime/termination-message.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('terminationMessagePath', () => {
  it('defaults to /dev/termination-log and keeps what the container says', () => {
    expect(terminationMessagePath({ name: 'a', image: 'x' })).toBe('/dev/termination-log');
    expect(terminationMessagePath({ name: 'a', image: 'x', terminationMessagePath: '/tmp/msg' })).toBe('/tmp/msg');
  });
});

describe('shouldFallbackToLogs', () => {
  it.each([
    ['File policy never falls back', 'File', 1, 'Error', false],
    ['a failed container falls back', 'FallbackToLogsOnError', 1, 'Error', true],
    ['a container that succeeded does not', 'FallbackToLogsOnError', 0, 'Completed', false],
    ['a container that could not run has no logs', 'FallbackToLogsOnError', 128, 'ContainerCannotRun', false],
  ] as const)('%s', (_, policy, exitCode, reason, expected) => {
    expect(shouldFallbackToLogs(policy, exitCode, reason)).toBe(expected);
  });
});

describe('terminationMessageFromFile', () => {
  it('keeps the last 4096 bytes of a longer file', () => {
    const text = `${'a'.repeat(10)}${'b'.repeat(maxTerminationMessageBytes)}`;
    expect(terminationMessageFromFile({ kind: 'read', data: bytes(text) }, false)).toEqual({ message: 'b'.repeat(4096), checkLogs: false });
  });

  it.each([
    ['an empty file, with the fallback, sends to the log', { kind: 'read', data: new Uint8Array() }, true, { message: '', checkLogs: true }],
    ['an empty file, without it, gives nothing', { kind: 'read', data: new Uint8Array() }, false, { message: '', checkLogs: false }],
    ['a written file wins over the log', { kind: 'read', data: bytes('boom') }, true, { message: 'boom', checkLogs: false }],
    ['a missing file sends to the log under the fallback', { kind: 'missing' }, true, { message: '', checkLogs: true }],
    ['no mount found is like a missing file', undefined, true, { message: '', checkLogs: true }],
    ['an unreadable file is a message of its own', { kind: 'failed', path: '/p/f', error: 'EACCES' }, true, { message: 'Error on reading termination log /p/f: EACCES', checkLogs: false }],
  ] as const)('%s', (_, read, fallback, expected) => {
    expect(terminationMessageFromFile(read, fallback)).toEqual(expected);
  });
});

describe('planTerminationMessage', () => {
  const mounts = [
    { container_path: '/data', host_path: '/var/lib/kubelet/pods/u/volumes/x' },
    { container_path: '/dev/termination-log', host_path: '/var/lib/kubelet/pods/u/containers/app/0a1b2c3d' },
  ];

  it('picks the mount at the annotated path and reads the policy from the annotations', () => {
    const status = { exit_code: 2, reason: 'Error', mounts, annotations: { [pathKey]: '/dev/termination-log', [policyKey]: 'FallbackToLogsOnError' } };
    expect(planTerminationMessage(status)).toEqual({ hostPath: '/var/lib/kubelet/pods/u/containers/app/0a1b2c3d', fallbackToLogs: true });
  });

  it('finds nothing without a path, or without a mount there', () => {
    expect(planTerminationMessage({ exit_code: 1, reason: '', mounts, annotations: { [pathKey]: '' } })).toEqual({ fallbackToLogs: false });
    expect(planTerminationMessage({ exit_code: 1, reason: '', mounts, annotations: { [pathKey]: '/elsewhere' } })).toEqual({ fallbackToLogs: false });
  });

  it('matches the path the way it was mounted (made absolute and clean)', () => {
    expect(findTerminationMessageFile(mounts, 'dev//termination-log')).toBe('/var/lib/kubelet/pods/u/containers/app/0a1b2c3d');
  });
});

describe('the file before the start', () => {
  it('is named by a uint32 in eight hex digits', () => {
    expect(terminationMessageFileName(0)).toBe('00000000');
    expect(terminationMessageFileName(0.5)).toBe('80000000');
    expect(terminationMessageFileName(0.9999999999)).toBe('ffffffff');
  });

  it('is mounted writable at the container path, made absolute', () => {
    expect(terminationMessageMount('/pods/u/containers/app/00000001', 'dev/termination-log', false)).toEqual({
      container_path: '/dev/termination-log', host_path: '/pods/u/containers/app/00000001', readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_PRIVATE',
    });
  });
});

describe('withTerminationMessage', () => {
  it.each([
    ['', '', ''],
    ['OOMKilled', '', 'OOMKilled'],
    ['', 'bye', 'bye'],
    ['runtime said', 'bye', 'runtime said: bye'],
  ])('%j + %j → %j', (runtime, message, expected) => {
    expect(withTerminationMessage(runtime, message)).toBe(expected);
  });
});

describe('lastBytes and the path helpers', () => {
  it('keeps the end', () => {
    expect([...lastBytes(bytes('abcdef'), 2)]).toEqual([...bytes('ef')]);
    expect(lastBytes(bytes('ab'), 4).length).toBe(2);
  });

  it.each([
    ['', '.'], ['/', '/'], ['a//b/./c/', 'a/b/c'], ['/a/../../b', '/b'], ['a/../..', '..'], ['../a/..', '..'],
  ])('cleanPath(%j) is %j', (input, expected) => {
    expect(cleanPath(input)).toBe(expected);
  });

  it('makes a path absolute and clean', () => {
    expect(makeAbsolutePath('dev/termination-log')).toBe('/dev/termination-log');
    expect(makeAbsolutePath('/a/b/../c')).toBe('/a/c');
  });
});
