import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkpointChecksum, fnv32a, spewCheckpointData } from '../../../src/domain/device-manager/checkpoint-checksum.js';
import { decodeDeviceCheckpoint, encodeDeviceCheckpoint, type DeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';

const CP: DeviceCheckpoint = {
  entries: [{ podUid: 'u1', containerName: 'c', resourceName: 'example.com/resource', deviceIds: { '-1': ['Dev-1'] }, allocResp: Buffer.from([18, 2, 8, 1]).toString('base64') }],
  registeredDevices: { 'example.com/resource': ['Dev-1', 'Dev-2'] },
};

describe('the device manager checkpoint', () => {
  it('writes Go\'s JSON layout', () => {
    const text = encodeDeviceCheckpoint(CP);
    expect(text).toBe(`{"Data":{"PodDeviceEntries":[{"PodUID":"u1","ContainerName":"c","ResourceName":"example.com/resource","DeviceIDs":{"-1":["Dev-1"]},"AllocResp":"EgIIAQ=="}],"RegisteredDevices":{"example.com/resource":["Dev-1","Dev-2"]}},"Checksum":${checkpointChecksum(CP)}}`);
  });

  it('hashes go-spew\'s %#v of the data with fnv32a', () => {
    expect(spewCheckpointData(CP)).toBe('(checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)[{PodUID:(string)u1 ContainerName:(string)c ResourceName:(string)example.com/resource DeviceIDs:(checkpoint.DevicesPerNUMA)map[-1:[Dev-1]] AllocResp:([]uint8)[18 2 8 1]}] RegisteredDevices:(map[string][]string)map[example.com/resource:[Dev-1 Dev-2]]}');
    expect(spewCheckpointData({ entries: [], registeredDevices: {} })).toBe('(checkpoint.checkpointData){PodDeviceEntries:([]checkpoint.PodDevicesEntry)<nil> RegisteredDevices:(map[string][]string)map[]}');
    // FNV-1a test vectors.
    expect(fnv32a('')).toBe(0x811c9dc5);
    expect(fnv32a('a')).toBe(0xe40c292c);
    expect(fnv32a('foobar')).toBe(0xbf9cf968);
  });

  it('sorts NUMA keys numerically for the hash and as strings for the JSON, as Go does', () => {
    const cp: DeviceCheckpoint = { entries: [{ ...CP.entries[0]!, deviceIds: { '10': ['x'], '2': ['y'], '-1': ['z'] } }], registeredDevices: {} };
    expect(spewCheckpointData(cp)).toContain('map[-1:[z] 2:[y] 10:[x]]');
    expect(encodeDeviceCheckpoint(cp)).toContain('"DeviceIDs":{"-1":["z"],"10":["x"],"2":["y"]}');
  });

  it('reads the Go kubelet v1.26\'s own file (check-go-kubelet.sh, the sample plugin), checksum verified, and writes it back byte for byte', () => {
    const text = readFileSync('test/fixtures/device-manager/go-v1.26-kubelet_internal_checkpoint.json', 'utf8').trim();
    const decoded = decodeDeviceCheckpoint(text);
    expect(decoded).toMatchObject({ ok: true, checkpoint: { entries: [{ containerName: 'c', resourceName: 'example.com/resource', deviceIds: { '-1': ['Dev-2'] } }], registeredDevices: { 'example.com/resource': ['Dev-1', 'Dev-2'] } } });
    expect(decoded.ok && encodeDeviceCheckpoint(decoded.checkpoint)).toBe(text);
  });

  it('reads back what it wrote', () => {
    expect(decodeDeviceCheckpoint(encodeDeviceCheckpoint(CP))).toEqual({ ok: true, checkpoint: CP });
    const empty = { entries: [], registeredDevices: {} };
    expect(encodeDeviceCheckpoint(empty)).toContain('"PodDeviceEntries":null');
    expect(decodeDeviceCheckpoint(encodeDeviceCheckpoint(empty))).toEqual({ ok: true, checkpoint: empty });
  });

  it.each([
    ['a changed device', (t: string) => t.replace('"Dev-2"', '"Dev-3"'), 'checkpoint is corrupted (checksum mismatch)'],
    ['no checksum', (t: string) => t.replace(/"Checksum":\d+/, '"Checksum":"x"'), 'no numeric "Checksum"'],
    ['not JSON', () => '{', 'not JSON'],
    ['a bad entry', (t: string) => t.replace('"PodUID":"u1"', '"PodUID":1'), 'PodDeviceEntries[0].PodUID is not a string'],
  ])('refuses %s', (_name, change, error) => {
    const decoded = decodeDeviceCheckpoint(change(encodeDeviceCheckpoint(CP)));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.error).toContain(error);
  });
});
