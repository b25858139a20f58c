/**
 * The memory manager's start (Go: manager.Start → NewCheckpointState → staticPolicy.validateState):
 * the state file must be of the configured policy and, under Static, its machine state must be what
 * its containers' blocks imply on this machine now (the memory, the hugepages or the reservations
 * may have changed since). What it holds becomes the containers' memory shares.
 */
import { decodeMemoryStateFile, encodeMemoryStateFile, memoryStateFileError, type MemoryEntries } from '../memory-state-file.js';
import type { MachineState, MemoryInventory } from './machine-state.js';
import { machineStateWith, type MemoryShare, type PodMemoryShares } from './static-policy.js';

export const MEMORY_POLICY_NONE = 'None';
export const MEMORY_POLICY_STATIC = 'Static';

/** Shares by pod uid, then container name. */
export type MemoryShares = Record<string, Record<string, MemoryShare>>;

function sharesFromEntries(entries: MemoryEntries): MemoryShares {
  return Object.fromEntries(Object.entries(entries).map(([uid, containers]) => [uid, Object.fromEntries(
    Object.entries(containers).map(([name, blocks]) => [name, {
      numaNodes: [...(blocks[0]?.numaAffinity ?? [])],
      bytes: Object.fromEntries(blocks.map((b) => [b.type, b.size])),
    }]),
  )]));
}

/** Go's state Entries: one block per resource, in resource order. */
export function entriesFromShares(shares: Record<string, PodMemoryShares>): MemoryEntries {
  const out: MemoryEntries = {};
  for (const [uid, containers] of Object.entries(shares)) {
    for (const [name, share] of Object.entries(containers)) {
      if (share === undefined) continue;
      (out[uid] ??= {})[name] = Object.keys(share.bytes).sort().map((type) => ({ numaAffinity: [...share.numaNodes], type, size: share.bytes[type] ?? 0 }));
    }
  }
  return out;
}

/** Go's areMachineStatesEqual: same nodes, groups, totals and reservations; free and reserved compared per group. */
function sameMachineState(a: MachineState, b: MachineState): boolean {
  const ids = Object.keys(a);
  if (ids.length !== Object.keys(b).length) return false;
  for (const id of ids.map(Number)) {
    const x = a[id];
    const y = b[id];
    if (x === undefined || y === undefined || x.numberOfAssignments !== y.numberOfAssignments) return false;
    if ([...x.cells].sort().join(',') !== [...y.cells].sort().join(',')) return false;
    if (Object.keys(x.memoryMap).length !== Object.keys(y.memoryMap).length) return false;
    for (const [name, t] of Object.entries(x.memoryMap)) {
      const u = y.memoryMap[name];
      if (u === undefined || t.total !== u.total || t.systemReserved !== u.systemReserved || t.allocatable !== u.allocatable) return false;
      const group = (s: MachineState, field: 'free' | 'reserved') => x.cells.reduce((sum, c) => sum + (s[c]?.memoryMap[name]?.[field] ?? 0), 0);
      if (group(a, 'free') !== group(b, 'free') || group(a, 'reserved') !== group(b, 'reserved')) return false;
    }
  }
  return true;
}

/** Go's validateState, for a file that decoded: why its content cannot be used here, or null. */
function stateError(inventory: MemoryInventory, machineState: MachineState, entries: MemoryEntries): string | null {
  if (Object.keys(machineState).length === 0) {
    return Object.keys(entries).length === 0 ? null : '[memorymanager] machine state can not be empty when it has memory assignments';
  }
  const known = new Map(inventory.nodes.map((n) => [n.id, n]));
  const fresh = machineStateWith(inventory, {});
  for (const [uid, containers] of Object.entries(entries)) {
    for (const [name, blocks] of Object.entries(containers)) {
      for (const b of blocks) {
        if (b.numaAffinity.some((id) => !known.has(id))) return `[memorymanager] (pod: ${uid}, container: ${name}) the memory assignment uses the NUMA that does not exist`;
        if (b.numaAffinity.some((id) => fresh[id]?.memoryMap[b.type] === undefined)) {
          return `[memorymanager] (pod: ${uid}, container: ${name}) the memory assignment uses memory resource that does not exist`;
        }
      }
    }
  }
  const expected = machineStateWith(inventory, sharesFromEntries(entries));
  return sameMachineState(machineState, expected) ? null : '[memorymanager] the expected machine state is different from the real one';
}

export type MemoryRestore = { ok: true; shares: MemoryShares } | { ok: false; message: string };

/**
 * The memory manager's start over the state file's text (null: no file, a fresh start). `inventory`
 * is null under the None policy. `path` names the file in the error, as Go does.
 */
export function restoreMemoryState(text: string | null, inventory: MemoryInventory | null, path: string): MemoryRestore {
  if (text === null) return { ok: true, shares: {} };
  const policy = inventory === null ? MEMORY_POLICY_NONE : MEMORY_POLICY_STATIC;
  const decoded = decodeMemoryStateFile(text, policy);
  if (!decoded.ok) return { ok: false, message: memoryStateFileError(path, decoded.message) };
  if (inventory === null) return { ok: true, shares: {} };
  const problem = stateError(inventory, decoded.file.machineState, decoded.file.entries);
  return problem === null ? { ok: true, shares: sharesFromEntries(decoded.file.entries) } : { ok: false, message: problem };
}

/** The state file for the memory the containers hold now (under None: an empty machine). */
export function memoryStateFileText(inventory: MemoryInventory | null, shares: Record<string, PodMemoryShares>): string {
  if (inventory === null) return encodeMemoryStateFile({ policyName: MEMORY_POLICY_NONE, machineState: {}, entries: {} });
  return encodeMemoryStateFile({ policyName: MEMORY_POLICY_STATIC, machineState: machineStateWith(inventory, shares), entries: entriesFromShares(shares) });
}
