import { describe, expect, it } from 'vitest';
import { parseDebugAddress } from '../../../src/adapters/debug-server/server.js';

describe('parseDebugAddress', () => {
  it.each([
    ['127.0.0.1:10260', '127.0.0.1', 10260], ['127.0.0.2:0', '127.0.0.2', 0], ['[::1]:10260', '::1', 10260], ['[0:0:0:0:0:0:0:1]:1', '0:0:0:0:0:0:0:1', 1],
  ])('takes the loopback address %s', (address, host, port) => {
    expect(parseDebugAddress(address)).toEqual({ host, port });
  });

  it.each(['0.0.0.0:10260', '10.0.0.5:10260', '[::]:10260', '[fe80::1]:10260', 'localhost:10260', 'node-1.example:10260'])(
    'refuses %s, which is not a loopback address, saying why',
    (address) => {
      expect(() => parseDebugAddress(address)).toThrow(expect.objectContaining({ code: 'KLT_ERR_FLAG_INVALID', message: expect.stringContaining('is not a loopback address') as string }) as Error);
    },
  );
});
