import { describe, expect, it } from 'vitest';
import { decodeMemoryStateFile, encodeMemoryStateFile, memoryStateFileError, type MemoryStateFile } from '../../../src/domain/resource-managers/memory-state-file.js';

// A checkpoint from Go's memorymanager state tests, with the checksum Go computed for it.
const GO_FILE = '{"policyName":"static","machineState":{"0":{"numberOfAssignments":0,"memoryMap":{"memory":{"total":2048,"systemReserved":512,"allocatable":1536,"reserved":512,"free":1024}},"cells":[]}},"entries":{"pod":{"container1":[{"numaAffinity":[0],"type":"memory","size":512}]}},"checksum":4215593881}';

const file: MemoryStateFile = {
  policyName: 'Static',
  machineState: {
    0: { numberOfAssignments: 2, cells: [0], memoryMap: {
      'hugepages-2Mi': { total: 0, systemReserved: 0, allocatable: 0, reserved: 0, free: 0 },
      memory: { total: 4096, systemReserved: 1024, allocatable: 3072, reserved: 1024, free: 2048 },
    } },
    1: { numberOfAssignments: 0, cells: [1], memoryMap: { memory: { total: 4096, systemReserved: 0, allocatable: 4096, reserved: 0, free: 4096 } } },
  },
  entries: { 'uid-1': { app: [{ numaAffinity: [0], type: 'memory', size: 1024 }, { numaAffinity: [0], type: 'hugepages-2Mi', size: 0 }] } },
};

describe('memory_manager_state', () => {
  it('verifies the checksum Go wrote', () => {
    const decoded = decodeMemoryStateFile(GO_FILE, 'static');
    expect(decoded).toEqual({ ok: true, file: {
      policyName: 'static',
      machineState: { 0: { numberOfAssignments: 0, cells: [], memoryMap: { memory: { total: 2048, systemReserved: 512, allocatable: 1536, reserved: 512, free: 1024 } } } },
      entries: { pod: { container1: [{ numaAffinity: [0], type: 'memory', size: 512 }] } },
    } });
  });

  it('refuses a file whose content no longer matches its checksum', () => {
    expect(decodeMemoryStateFile(GO_FILE.replace('"size":512', '"size":513'), 'static')).toEqual({ ok: false, message: 'checkpoint is corrupted' });
  });

  it('refuses a file written under another policy, with Go\'s message', () => {
    expect(decodeMemoryStateFile(GO_FILE, 'Static')).toEqual({ ok: false, message: '[memorymanager] configured policy "Static" differs from state checkpoint policy "static"' });
  });

  it('refuses what is not JSON', () => {
    const decoded = decodeMemoryStateFile('{', 'Static');
    expect(decoded.ok).toBe(false);
  });

  it('reads back what it writes, with Go\'s field order and sorted keys', () => {
    const text = encodeMemoryStateFile(file);
    expect(text.startsWith('{"policyName":"Static","machineState":{"0":{"numberOfAssignments":2,"memoryMap":{"hugepages-2Mi":')).toBe(true);
    expect(decodeMemoryStateFile(text, 'Static')).toEqual({ ok: true, file });
  });

  it('leaves out the entries when no container holds memory, as Go\'s omitempty does', () => {
    const text = encodeMemoryStateFile({ policyName: 'None', machineState: {}, entries: {} });
    expect(JSON.parse(text)).toEqual({ policyName: 'None', machineState: {}, checksum: expect.any(Number) });
    expect(decodeMemoryStateFile(text, 'None').ok).toBe(true);
  });

  it('tells the operator to drain the node and delete the file', () => {
    expect(memoryStateFileError('/var/lib/kubelet/memory_manager_state', 'checkpoint is corrupted')).toBe(
      'could not restore state from checkpoint: checkpoint is corrupted, please drain this node and delete the memory manager checkpoint file "/var/lib/kubelet/memory_manager_state" before restarting Kubelet',
    );
  });
});
