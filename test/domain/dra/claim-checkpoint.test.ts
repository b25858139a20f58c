import { describe, expect, it } from 'vitest';
import { decodeClaimCheckpoint, encodeClaimCheckpoint } from '../../../src/domain/dra/claim-checkpoint.js';
import type { ClaimInfo } from '../../../src/domain/dra/claim-info.js';

const claim: ClaimInfo = {
  claimUid: 'c-1', claimName: 'gpu', namespace: 'ns', podUids: ['pod-b', 'pod-a'],
  drivers: {
    'gpu.example.com': {
      devices: [
        { poolName: 'node-1', deviceName: 'gpu-0', shareId: 's-1', requestNames: ['big'], cdiDeviceIds: ['gpu.example.com/gpu=gpu-0'] },
        { poolName: 'node-1', deviceName: 'gpu-1', requestNames: [], cdiDeviceIds: [] },
      ],
    },
    'a.example.com': { devices: [] },
  },
  prepared: true,
};

// What Go's encoding/json writes for it: fields in declaration order, map keys sorted, nil lists null.
const DATA = '{"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","ClaimInfoStateList":[{"ClaimUID":"c-1","ClaimName":"gpu","Namespace":"ns",'
  + '"PodUIDs":{"pod-a":{},"pod-b":{}},"DriverState":{"a.example.com":{"Devices":null},"gpu.example.com":{"Devices":['
  + '{"PoolName":"node-1","DeviceName":"gpu-0","ShareID":"s-1","RequestNames":["big"],"CDIDeviceIDs":["gpu.example.com/gpu=gpu-0"]},'
  + '{"PoolName":"node-1","DeviceName":"gpu-1","ShareID":null,"RequestNames":null,"CDIDeviceIDs":null}]}}}]}';
// CRC-32 (IEEE) of DATA's bytes, computed apart (Python's zlib.crc32).
const CHECKSUM = 2698919531;

describe('the dra_manager_state checkpoint', () => {
  it('is written as Go writes it, its checksum the CRC-32 of the data text', () => {
    expect(encodeClaimCheckpoint([claim])).toBe(`{"Data":${JSON.stringify(DATA)},"Checksum":${CHECKSUM}}`);
    expect(encodeClaimCheckpoint([])).toBe(`{"Data":${JSON.stringify('{"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1","ClaimInfoStateList":null}')},"Checksum":4010664294}`);
  });

  it('reads back what it wrote, not prepared (every claim is prepared again after a restart)', () => {
    const decoded = decodeClaimCheckpoint(encodeClaimCheckpoint([claim]));
    expect(decoded).toEqual({ ok: true, claims: [{ ...claim, podUids: ['pod-a', 'pod-b'], prepared: false }] });
    expect(decodeClaimCheckpoint(encodeClaimCheckpoint([]))).toEqual({ ok: true, claims: [] });
  });

  it('refuses a file whose checksum does not match its data, naming both', () => {
    expect(decodeClaimCheckpoint(`{"Data":${JSON.stringify(DATA)},"Checksum":${CHECKSUM + 1}}`)).toEqual({
      ok: false, error: `checkpoint is corrupted: checksum ${CHECKSUM + 1}, its data's is ${CHECKSUM}`,
    });
  });

  it('names what is wrong with a file of the wrong shape', () => {
    const sealed = encodeChecked;
    expect(decodeClaimCheckpoint('{')).toMatchObject({ ok: false, error: expect.stringMatching(/^not JSON/) });
    expect(decodeClaimCheckpoint('{"Data":{},"Checksum":1}')).toMatchObject({ ok: false, error: expect.stringMatching(/^not a checkpoint/) });
    expect(decodeClaimCheckpoint(sealed('{"ClaimInfoStateList":{}}'))).toEqual({ ok: false, error: 'ClaimInfoStateList is not a list' });
    expect(decodeClaimCheckpoint(sealed('{"ClaimInfoStateList":[{"ClaimUID":"u","ClaimName":1,"Namespace":"n"}]}'))).toEqual({ ok: false, error: 'ClaimInfoStateList[0].ClaimName is not a string' });
    expect(decodeClaimCheckpoint(sealed('{"ClaimInfoStateList":[{"ClaimUID":"u","ClaimName":"c","Namespace":"n","DriverState":{"d":{"Devices":[{"PoolName":"p","DeviceName":"x","CDIDeviceIDs":[1]}]}}}]}')))
      .toEqual({ ok: false, error: 'ClaimInfoStateList[0].DriverState[d].Devices[0] has a RequestNames or CDIDeviceIDs that is not a list of strings' });
  });
});

/** A checkpoint around `data` with its right checksum (a bitwise CRC-32 written here), so only the shape is wrong. */
function encodeChecked(data: string): string {
  return `{"Data":${JSON.stringify(data)},"Checksum":${crc32Of(data)}}`;
}

function crc32Of(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
