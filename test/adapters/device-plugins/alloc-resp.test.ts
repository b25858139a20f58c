import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocationFromCheckpoint, allocationOf, boundedAllocationOf, wireCounts } from '../../../src/adapters/device-plugins/alloc-resp.js';
import { decodeContainerAllocateResponse, encodeContainerAllocateResponse } from '../../../src/adapters/device-plugins/device-plugin-proto.js';
import { MAX_CHECKPOINT_ALLOC_RESP_CHARS } from '../../../src/domain/device-manager/allocation-limits.js';
import { decodeDeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { ContainerAllocateResponse__Output } from '../../../src/generated/v1beta1/ContainerAllocateResponse.js';

const R = 'example.com/resource';
const answerWith = (mounts: number): ContainerAllocateResponse__Output => ({
  envs: { A: '1', B: '2' },
  mounts: Array.from({ length: mounts }, (_, i) => ({ container_path: `/m/${i}`, host_path: `/h/${i}`, read_only: false })),
  devices: [{ container_path: '/dev/x', host_path: '/dev/null', permissions: 'rw' }],
  annotations: { k: 'v' },
  cdi_devices: [{ name: 'v.com/c=a' }, { name: 'v.com/c=b' }],
});

describe('an Allocate answer as the checkpoint keeps it (AllocResp)', () => {
  it('reads the Go kubelet\'s: the sample plugin\'s mount of /tmp/Dev-2', () => {
    const decoded = decodeDeviceCheckpoint(readFileSync('test/fixtures/device-manager/go-v1.26-kubelet_internal_checkpoint.json', 'utf8'));
    if (!decoded.ok) throw new Error(decoded.error);
    const allocResp = decoded.checkpoint.entries[0]!.allocResp!;
    const bytes = Buffer.from(allocResp, 'base64');
    const answer = decodeContainerAllocateResponse(bytes) as ContainerAllocateResponse__Output;
    const allocation = { envs: {}, mounts: [{ containerPath: '/tmp/Dev-2', hostPath: '/tmp/Dev-2', readOnly: false }], devices: [], annotations: {}, cdiDevices: [] };
    expect(allocationOf(answer)).toEqual(allocation);
    expect(encodeContainerAllocateResponse(answer).equals(bytes)).toBe(true);
    expect(allocationFromCheckpoint(R, allocResp)).toEqual({ ok: true, allocation });
  });

  it('counts each kind of entry on the wire as decoding would', () => {
    expect(wireCounts(encodeContainerAllocateResponse(answerWith(3)))).toEqual({ envs: 2, mounts: 3, devices: 1, annotations: 1, cdiDevices: 2 });
  });

  it('refuses an answer of 40,000 mounts without decoding it, naming the resource and the count', () => {
    const allocResp = encodeContainerAllocateResponse(answerWith(40_000)).toString('base64');
    expect(allocResp.length).toBeLessThan(MAX_CHECKPOINT_ALLOC_RESP_CHARS);
    expect(allocationFromCheckpoint(R, allocResp)).toEqual({
      ok: false, error: `device plugin for resource "${R}" answered Allocate with 40000 mounts for one container, more than the 1024 allowed`,
    });
  });

  it('refuses an AllocResp longer than any answer a plugin can send, and one that is not an answer', () => {
    expect(allocationFromCheckpoint(R, 'A'.repeat(MAX_CHECKPOINT_ALLOC_RESP_CHARS + 4))).toEqual({ ok: false, error: expect.stringMatching(/ more than the 5592408 a plugin's answer can take$/) });
    // A length-delimited field claiming more bytes than there are.
    expect(allocationFromCheckpoint(R, Buffer.from([0x12, 0x7f, 0x01]).toString('base64'))).toEqual({ ok: false, error: expect.stringMatching(/^AllocResp of resource "example.com\/resource" is not an Allocate answer: /) });
  });
});

describe('an Allocate answer from the plugin', () => {
  it('is taken up to the bound, and refused over it with KLT_ERR_DEVICE_PLUGIN naming the resource', () => {
    expect(boundedAllocationOf(R, answerWith(1024)).mounts).toHaveLength(1024);
    let refused: unknown;
    try {
      boundedAllocationOf(R, answerWith(40_000));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(KubeletError);
    expect(refused).toMatchObject({ code: 'KLT_ERR_DEVICE_PLUGIN', message: expect.stringContaining(`"${R}" answered Allocate with 40000 mounts`) });
  });
});
