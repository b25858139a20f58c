/**
 * The CPU manager's state file, `<root-dir>/cpu_manager_state` (Go's cpumanager/state checkpoint,
 * v2 format): the policy's name, the default CPU set (the shared pool), the exclusive CPUs by pod
 * uid and container name, and Go's checksum. A file whose checksum does not match, whose policy is
 * not the configured one, or whose sets do not parse is refused with Go's messages; the static
 * policy then checks the sets against the machine (validateState).
 */
import type { Assignments } from './assignments.js';
import { formatCpuSet, parseCpuSet, sortedCpus } from './cpu-set.js';
import { spewPointerToStructChecksum } from './go-checksum.js';

export const CPU_MANAGER_STATE_FILE = 'cpu_manager_state';

export interface CpuState {
  policyName: string;
  /** The shared pool ("" before the policy set it, and always with the none policy). */
  defaultCpuSet: number[];
  /** Exclusive CPUs by pod uid and container name. */
  entries: Record<string, Record<string, number[]>>;
}

type Entries = Record<string, Record<string, string>>;

/** Go's checksum of CPUManagerCheckpoint with its checksum field 0. */
export function cpuStateChecksum(policyName: string, defaultCpuSet: string, entries: Entries): number {
  return spewPointerToStructChecksum('state.CPUManagerCheckpoint', [
    { name: 'PolicyName', goType: 'string', value: policyName },
    { name: 'DefaultCPUSet', goType: 'string', value: defaultCpuSet },
    { name: 'Entries', goType: 'map[string]map[string]string', value: entries },
    { name: 'Checksum', goType: 'checksum.Checksum', value: 0 },
  ]);
}

const sortedRecord = <T>(record: Record<string, T>): Record<string, T> => Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]!]));

/** The file's text, as Go's json.Marshal writes it (keys sorted, `entries` left out when empty). */
export function encodeCpuState(state: CpuState): string {
  const entries: Entries = {};
  for (const uid of Object.keys(state.entries).sort()) {
    entries[uid] = sortedRecord(Object.fromEntries(Object.entries(state.entries[uid]!).map(([name, cpus]) => [name, formatCpuSet(cpus)])));
  }
  const defaultCpuSet = formatCpuSet(state.defaultCpuSet);
  const checksum = cpuStateChecksum(state.policyName, defaultCpuSet, entries);
  return JSON.stringify({ policyName: state.policyName, defaultCpuSet, ...(Object.keys(entries).length > 0 ? { entries } : {}), checksum });
}

/** Go's key match is case-insensitive (encoding/json): `defaultCPUSet` reads as `defaultCpuSet`. */
function field(object: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(object).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : object[key];
}

const isStringMap = (v: unknown): v is Record<string, string> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/**
 * The state a file holds, checked against the configured policy; throws an Error with Go's text
 * (restoreState's) when it cannot be used.
 */
export function decodeCpuState(text: string, configuredPolicy: string): CpuState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error((err as Error).message, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('checkpoint is corrupted');
  const object = parsed as Record<string, unknown>;
  const policyName = field(object, 'policyName') ?? '';
  const defaultText = field(object, 'defaultCpuSet') ?? '';
  const rawEntries = field(object, 'entries') ?? {};
  const checksum = field(object, 'checksum') ?? 0;
  if (typeof policyName !== 'string' || typeof defaultText !== 'string' || typeof checksum !== 'number' || typeof rawEntries !== 'object' || rawEntries === null) {
    throw new Error('checkpoint is corrupted');
  }
  const entries: Entries = {};
  for (const [uid, containers] of Object.entries(rawEntries)) {
    if (!isStringMap(containers)) throw new Error('checkpoint is corrupted');
    entries[uid] = containers;
  }
  // A zero checksum is accepted, as Go accepts one from its old file backend.
  if (checksum !== 0 && checksum !== cpuStateChecksum(policyName, defaultText, entries)) throw new Error('checkpoint is corrupted');
  if (policyName !== configuredPolicy) throw new Error(`configured policy ${JSON.stringify(configuredPolicy)} differs from state checkpoint policy ${JSON.stringify(policyName)}`);
  let defaultCpuSet: number[];
  try {
    defaultCpuSet = parseCpuSet(defaultText);
  } catch (err) {
    throw new Error(`could not parse default cpu set ${JSON.stringify(defaultText)}: ${(err as Error).message}`, { cause: err });
  }
  const cpus: CpuState['entries'] = {};
  for (const [uid, containers] of Object.entries(entries)) {
    cpus[uid] = {};
    for (const [name, set] of Object.entries(containers)) {
      try {
        cpus[uid][name] = parseCpuSet(set);
      } catch (err) {
        throw new Error(`could not parse cpuset ${JSON.stringify(set)} for container ${JSON.stringify(name)} in pod ${JSON.stringify(uid)}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
  return { policyName, defaultCpuSet, entries: cpus };
}

/** Go's NewCheckpointState's refusal, naming the file to delete. */
export function cpuStateRefusal(reason: string, path: string): string {
  return `start cpu manager error: could not restore state from checkpoint: ${reason}, please drain this node and delete the CPU manager checkpoint file ${JSON.stringify(path)} before restarting Kubelet`;
}

/** The state's exclusive CPUs as assignments. */
export function assignmentsOfCpuState(state: CpuState): Assignments {
  const assignments: Assignments = {};
  for (const [uid, containers] of Object.entries(state.entries)) {
    assignments[uid] = Object.fromEntries(Object.entries(containers).map(([name, cpus]) => [name, { cpus }]));
  }
  return assignments;
}

/** The assignments' exclusive CPUs as the state's entries. */
export function cpuEntriesOf(assignments: Assignments): CpuState['entries'] {
  const entries: CpuState['entries'] = {};
  for (const [uid, pod] of Object.entries(assignments)) {
    const containers = Object.entries(pod).filter(([, a]) => a.cpus !== undefined && a.cpus.length > 0);
    if (containers.length > 0) entries[uid] = Object.fromEntries(containers.map(([name, a]) => [name, a.cpus!]));
  }
  return entries;
}

/**
 * Go's staticPolicy.validateState against the machine: an empty default set is a fresh state (no
 * entries allowed); otherwise the reserved CPUs are in it, no entry overlaps it, and together they are
 * every CPU of the machine. Null when valid, else Go's reason.
 */
export function staticStateProblem(state: CpuState, allCpus: readonly number[], reserved: readonly number[]): string | null {
  const entrySets = Object.entries(state.entries).flatMap(([uid, containers]) => Object.entries(containers).map(([name, cpus]) => ({ uid, name, cpus })));
  if (state.defaultCpuSet.length === 0) return entrySets.length > 0 ? 'default cpuset cannot be empty' : null;
  const inDefault = new Set(state.defaultCpuSet);
  if (!reserved.every((c) => inDefault.has(c))) {
    return `not all reserved cpus: "${formatCpuSet(reserved)}" are present in defaultCpuSet: "${formatCpuSet(state.defaultCpuSet)}"`;
  }
  for (const { uid, name, cpus } of entrySets) {
    if (cpus.some((c) => inDefault.has(c))) {
      return `pod: ${uid}, container: ${name} cpuset: "${formatCpuSet(cpus)}" overlaps with default cpuset "${formatCpuSet(state.defaultCpuSet)}"`;
    }
  }
  const known = sortedCpus([...state.defaultCpuSet, ...entrySets.flatMap((e) => e.cpus)]);
  if (formatCpuSet(known) !== formatCpuSet(allCpus)) {
    return `current set of available CPUs "${formatCpuSet(allCpus)}" doesn't match with CPUs in state "${formatCpuSet(known)}"`;
  }
  return null;
}
