/**
 * The memory manager's state file `memory_manager_state` (Go: memorymanager/state/checkpoint.go and
 * state_checkpoint.go): the policy name, the machine state, the containers' memory blocks and Go's
 * checksum, as JSON. Pure: encode what the assignments imply, decode and check what a file holds.
 */
import { goChecksum, goInt, goString, type GoValue } from './go-checksum.js';
import type { MachineState, MemoryBlock } from './memory/machine-state.js';

export const MEMORY_MANAGER_STATE_FILE = 'memory_manager_state';

/** Blocks by pod uid, then container name (Go's ContainerMemoryAssignments). */
export type MemoryEntries = Record<string, Record<string, MemoryBlock[]>>;

export interface MemoryStateFile {
  policyName: string;
  machineState: MachineState;
  entries: MemoryEntries;
}

const uint64 = (n: number): GoValue => goInt('uint64', n);
const intSlice = (ids: readonly number[] | null): GoValue => ({ kind: 'slice', type: '[]int', items: ids === null ? null : ids.map((id) => goInt('int', id)) });

/** The checkpoint as Go's reflection sees it, checksum zero. */
function goCheckpoint(file: MemoryStateFile): GoValue {
  const machine: GoValue = {
    kind: 'map',
    type: 'state.NUMANodeMap',
    entries: Object.entries(file.machineState).map(([id, node]) => [
      { kind: 'int', type: 'int', value: Number(id) },
      {
        kind: 'ptr',
        type: '*state.NUMANodeState',
        to: {
          kind: 'struct',
          type: 'state.NUMANodeState',
          fields: [
            ['NumberOfAssignments', goInt('int', node.numberOfAssignments)],
            ['MemoryMap', {
              kind: 'map',
              type: 'map[v1.ResourceName]*state.MemoryTable',
              entries: Object.entries(node.memoryMap).map(([name, t]) => [
                { kind: 'string', type: 'v1.ResourceName', value: name },
                {
                  kind: 'ptr',
                  type: '*state.MemoryTable',
                  to: { kind: 'struct', type: 'state.MemoryTable', fields: [
                    ['TotalMemSize', uint64(t.total)], ['SystemReserved', uint64(t.systemReserved)], ['Allocatable', uint64(t.allocatable)],
                    ['Reserved', uint64(t.reserved)], ['Free', uint64(t.free)],
                  ] },
                },
              ]),
            }],
            ['Cells', intSlice(node.cells)],
          ],
        },
      },
    ]),
  };
  const entries: GoValue = {
    kind: 'map',
    type: 'state.ContainerMemoryAssignments',
    entries: Object.entries(file.entries).map(([uid, containers]) => [
      goString('string', uid) as GoValue & { kind: 'string' },
      {
        kind: 'map',
        type: 'map[string][]state.Block',
        entries: Object.entries(containers).map(([name, blocks]) => [
          goString('string', name) as GoValue & { kind: 'string' },
          { kind: 'slice', type: '[]state.Block', items: blocks.map((b) => ({ kind: 'struct', type: 'state.Block', fields: [
            ['NUMAAffinity', intSlice(b.numaAffinity)], ['Type', goString('v1.ResourceName', b.type)], ['Size', uint64(b.size)],
          ] })) },
        ]),
      },
    ]),
  };
  return {
    kind: 'ptr',
    type: '*state.MemoryManagerCheckpoint',
    to: { kind: 'struct', type: 'state.MemoryManagerCheckpoint', fields: [
      ['PolicyName', goString('string', file.policyName)], ['MachineState', machine], ['Entries', entries], ['Checksum', goInt('checksum.Checksum', 0)],
    ] },
  };
}

function sortedObject<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Go's json.Marshal of the checkpoint: struct fields in order, map keys sorted, `entries` left out when empty. */
export function encodeMemoryStateFile(file: MemoryStateFile): string {
  const machineState = sortedObject(Object.fromEntries(Object.entries(file.machineState).map(([id, n]) => [id, {
    numberOfAssignments: n.numberOfAssignments,
    memoryMap: sortedObject(Object.fromEntries(Object.entries(n.memoryMap).map(([name, t]) => [name, {
      total: t.total, systemReserved: t.systemReserved, allocatable: t.allocatable, reserved: t.reserved, free: t.free,
    }]))),
    cells: n.cells,
  }])));
  const entries = sortedObject(Object.fromEntries(Object.entries(file.entries).map(([uid, cs]) => [uid, sortedObject(Object.fromEntries(
    Object.entries(cs).map(([name, blocks]) => [name, blocks.map((b) => ({ numaAffinity: b.numaAffinity, type: b.type, size: b.size }))]),
  ))])));
  return JSON.stringify({
    policyName: file.policyName,
    machineState,
    ...(Object.keys(entries).length > 0 ? { entries } : {}),
    checksum: goChecksum(goCheckpoint(file)),
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : NaN);

function parseMachineState(raw: unknown): MachineState | undefined {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) return undefined;
  const out: MachineState = {};
  for (const [id, node] of Object.entries(raw)) {
    if (!/^\d+$/.test(id) || !isRecord(node) || !isRecord(node.memoryMap ?? {}) || !Array.isArray(node.cells ?? [])) return undefined;
    const memoryMap: MachineState[number]['memoryMap'] = {};
    for (const [name, t] of Object.entries((node.memoryMap ?? {}) as Record<string, unknown>)) {
      if (!isRecord(t)) return undefined;
      memoryMap[name] = { total: num(t.total ?? 0), systemReserved: num(t.systemReserved ?? 0), allocatable: num(t.allocatable ?? 0), reserved: num(t.reserved ?? 0), free: num(t.free ?? 0) };
    }
    out[Number(id)] = { numberOfAssignments: Number(node.numberOfAssignments ?? 0), memoryMap, cells: ((node.cells ?? []) as unknown[]).map(Number) };
  }
  return out;
}

function parseEntries(raw: unknown): MemoryEntries | undefined {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) return undefined;
  const out: MemoryEntries = {};
  for (const [uid, cs] of Object.entries(raw)) {
    if (!isRecord(cs)) return undefined;
    out[uid] = {};
    for (const [name, blocks] of Object.entries(cs)) {
      if (!Array.isArray(blocks)) return undefined;
      out[uid][name] = blocks.map((b: unknown) => {
        const block = isRecord(b) ? b : {};
        return { numaAffinity: Array.isArray(block.numaAffinity) ? block.numaAffinity.map(Number) : [], type: String(block.type ?? ''), size: num(block.size ?? 0) };
      });
    }
  }
  return out;
}

/**
 * Go's restoreState: the file's content, or why it cannot be used (a corrupt file, another policy).
 * The message is Go's, without the advice Go wraps it in (`memoryStateFileError` adds that).
 */
export function decodeMemoryStateFile(text: string, policyName: string): { ok: true; file: MemoryStateFile } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
  if (!isRecord(raw)) return { ok: false, message: 'checkpoint is corrupted' };
  const machineState = parseMachineState(raw.machineState);
  const entries = parseEntries(raw.entries);
  if (machineState === undefined || entries === undefined || typeof raw.policyName !== 'string') return { ok: false, message: 'checkpoint is corrupted' };
  const file: MemoryStateFile = { policyName: raw.policyName, machineState, entries };
  if (goChecksum(goCheckpoint(file)) !== raw.checksum) return { ok: false, message: 'checkpoint is corrupted' };
  if (file.policyName !== policyName) {
    return { ok: false, message: `[memorymanager] configured policy ${JSON.stringify(policyName)} differs from state checkpoint policy ${JSON.stringify(file.policyName)}` };
  }
  return { ok: true, file };
}

/** Go's NewCheckpointState error: the reason and what to do about it. */
export function memoryStateFileError(path: string, message: string): string {
  return `could not restore state from checkpoint: ${message}, please drain this node and delete the memory manager checkpoint file ${JSON.stringify(path)} before restarting Kubelet`;
}
