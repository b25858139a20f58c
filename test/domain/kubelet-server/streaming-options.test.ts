import { describe, expect, it } from 'vitest';
import {
  execCommand, isUpgradeRequest, isWebSocketRequest, parsePortForwardPorts, parseRemoteCommandOptions,
} from '../../../src/domain/kubelet-server/streaming-options.js';

const q = (s: string) => new URLSearchParams(s);

describe('parseRemoteCommandOptions', () => {
  it.each([
    ['input=1&output=1&error=1', { stdin: true, stdout: true, stderr: true, tty: false }],
    ['output=1', { stdin: false, stdout: true, stderr: false, tty: false }],
    // A terminal has one output: stderr is dropped, as Go drops it.
    ['input=1&output=1&error=1&tty=1', { stdin: true, stdout: true, stderr: false, tty: true }],
    // The first value counts (Go's FormValue).
    ['output=1&output=0&error=0&error=1', { stdin: false, stdout: true, stderr: false, tty: false }],
  ])('reads %s as the API server sends it', (query, expected) => {
    expect(parseRemoteCommandOptions(q(query))).toEqual({ ok: true, value: expected });
  });

  it.each(['', 'stdin=true&stdout=true&stderr=true', 'input=true&output=yes', 'tty=1&error=1'])(
    'refuses %j with Go\'s message: only `1` under input/output/error turns a stream on',
    (query) => {
      expect(parseRemoteCommandOptions(q(query))).toEqual({ ok: false, message: 'you must specify at least 1 of stdin, stdout, stderr' });
    },
  );
});

describe('execCommand', () => {
  it('is every command value in order, spaces kept', () => {
    expect(execCommand(q('command=sh&output=1&command=-c&command=echo%20a%20b'))).toEqual(['sh', '-c', 'echo a b']);
  });
});

describe('parsePortForwardPorts', () => {
  it('takes no ports over SPDY: they come with the client\'s streams', () => {
    expect(parsePortForwardPorts(q('port=80'), false)).toEqual({ ok: true, value: [] });
  });

  it('reads repeated and comma-separated ports over WebSocket', () => {
    expect(parsePortForwardPorts(q('port=80,8080&port=65535'), true)).toEqual({ ok: true, value: [80, 8080, 65535] });
  });

  it.each([
    ['', 'query parameter "port" is required'],
    ['port=', 'query parameter "port" cannot be empty'],
    ['port=80,x', 'unable to parse "80,x" as a port: strconv.ParseUint: parsing "x": invalid syntax'],
    ['port=70000', 'unable to parse "70000" as a port: strconv.ParseUint: parsing "70000": value out of range'],
    ['port=-1', 'unable to parse "-1" as a port: strconv.ParseUint: parsing "-1": invalid syntax'],
    ['port=0', 'port "0" must be > 0'],
  ])('refuses %j over WebSocket with Go\'s message', (query, message) => {
    expect(parsePortForwardPorts(q(query), true)).toEqual({ ok: false, message });
  });
});

describe('upgrade detection', () => {
  it.each([
    [{ connection: 'Upgrade', upgrade: 'SPDY/3.1' }, true, false],
    [{ connection: 'keep-alive, Upgrade', upgrade: 'websocket' }, true, true],
    [{ connection: 'upgrade', upgrade: 'WebSocket' }, true, true],
    [{ upgrade: 'websocket' }, false, false],
    [{ connection: 'keep-alive' }, false, false],
  ])('reads %j as upgrade %s, WebSocket %s', (headers, upgrade, webSocket) => {
    expect(isUpgradeRequest(headers)).toBe(upgrade);
    expect(isWebSocketRequest(headers)).toBe(webSocket);
  });
});
