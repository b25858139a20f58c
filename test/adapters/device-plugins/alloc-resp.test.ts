import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocationOf } from '../../../src/adapters/device-plugins/device-plugin-host.js';
import { decodeContainerAllocateResponse, encodeContainerAllocateResponse } from '../../../src/adapters/device-plugins/device-plugin-proto.js';
import { decodeDeviceCheckpoint } from '../../../src/domain/device-manager/checkpoint.js';
import type { ContainerAllocateResponse__Output } from '../../../src/generated/v1beta1/ContainerAllocateResponse.js';

describe('an Allocate answer as the checkpoint keeps it (AllocResp)', () => {
  it('reads the Go kubelet\'s: the sample plugin\'s mount of /tmp/Dev-2', () => {
    const decoded = decodeDeviceCheckpoint(readFileSync('test/fixtures/device-manager/go-v1.26-kubelet_internal_checkpoint.json', 'utf8'));
    if (!decoded.ok) throw new Error(decoded.error);
    const bytes = Buffer.from(decoded.checkpoint.entries[0]!.allocResp!, 'base64');
    const answer = decodeContainerAllocateResponse(bytes) as ContainerAllocateResponse__Output;
    expect(allocationOf(answer)).toEqual({ envs: {}, mounts: [{ containerPath: '/tmp/Dev-2', hostPath: '/tmp/Dev-2', readOnly: false }], devices: [], annotations: {}, cdiDevices: [] });
    expect(encodeContainerAllocateResponse(answer).equals(bytes)).toBe(true);
  });
});
