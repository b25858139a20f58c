import protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { listedDeviceCount } from '../../../src/adapters/device-plugins/listed-device-count.js';
import { DEVICE_PLUGIN_DESCRIPTOR } from '../../../src/generated/device-plugin-descriptor.js';

const answerType = protobuf.Root.fromJSON(DEVICE_PLUGIN_DESCRIPTOR).lookupType('v1beta1.ListAndWatchResponse');
const encoded = (devices: object[]) => answerType.encode(answerType.fromObject({ devices })).finish();

describe('listedDeviceCount', () => {
  it.each([0, 1, 3, 5_000])('counts %i devices of an encoded answer without decoding it', (n) => {
    const devices = Array.from({ length: n }, (_, i) => ({ ID: `dev-${i}`, health: 'Healthy', topology: { nodes: [{ ID: i % 2 }] } }));
    expect(listedDeviceCount(encoded(devices))).toBe(n);
  });

  it('skips fields other than the devices, as a newer plugin may send', () => {
    const device = encoded([{ ID: 'a', health: 'Healthy' }]);
    // field 2 varint 300, field 3 fixed32, field 4 fixed64, then the device.
    const extra = Uint8Array.from([0x10, 0xac, 0x02, 0x1d, 1, 2, 3, 4, 0x21, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(listedDeviceCount(Uint8Array.from([...extra, ...device]))).toBe(1);
  });

  it.each([
    ['a length past the end', Uint8Array.from([0x0a, 0x05, 1])],
    ['a truncated tag', Uint8Array.from([0x80])],
    ['a group wire type', Uint8Array.from([0x0b])],
  ])('answers null for %s, leaving the error to the decoder', (_what, bytes) => {
    expect(listedDeviceCount(bytes)).toBeNull();
  });
});
