import { describe, expect, it } from 'vitest';
import { resolveNodeName } from '../../../src/domain/node/node-name.js';

describe('resolveNodeName', () => {
  it.each([
    ['', 'Node-A', 'node-a', false],
    ['', '  worker-7.Example.COM\n', 'worker-7.example.com', false],
    ['Override-1', 'node-a', 'override-1', true],
    ['  Padded ', 'node-a', 'padded', true],
  ])('uses override %j over host name %j → %j', (hostnameOverride, osHostname, expected, overridden) => {
    expect(resolveNodeName({ hostnameOverride, osHostname })).toEqual({ hostname: expected, nodeName: expected, hostnameOverridden: overridden });
  });

  it('rejects a blank --hostname-override instead of falling back to the host name, naming the flag', () => {
    expect(() => resolveNodeName({ hostnameOverride: '   ', osHostname: 'node-a' })).toThrow(
      expect.objectContaining({ code: 'KLT_ERR_FLAG_INVALID', message: expect.stringContaining('--hostname-override') }),
    );
  });

  it('rejects an empty host name when there is no override, pointing at the flag', () => {
    expect(() => resolveNodeName({ hostnameOverride: '', osHostname: ' \n' })).toThrow(
      expect.objectContaining({ code: 'KLT_ERR_HOST_IO', message: expect.stringContaining('--hostname-override') }),
    );
  });
});
