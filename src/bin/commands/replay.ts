/**
 * `kubelet-ts replay LOG`: feed the log's inputs to a fresh supervisor whose effects are inert,
 * regenerate every derived record and compare. Identical: exit 0 and one summary line. Divergent:
 * exit 1 with the first divergent record, expected against actual. A log recorded by other machine
 * definitions (its header's hash is not today's): exit 1 before replaying, naming both hashes, unless
 * --allow-definition-change asks to replay it anyway. Not a log, or another format version: exit 2.
 */
import { replay } from '../../actors/journal/replay.js';
import type { CommandIo } from '../io.js';
import { machinesSha256 } from '../machines.js';
import { inertSystemEffects, provideSystem } from '../system.js';
import { commandArgsOrExit } from './command-args.js';
import { readLogForCommand } from './read-log.js';

const REPLAY_OPTIONS = { 'allow-definition-change': { type: 'boolean' } } as const;
const REPLAY_USAGE = 'usage: kubelet-ts replay [--allow-definition-change] LOG\n';

/** The system with every effect inert: the log answers for them. */
export function replayMachine() {
  return provideSystem(inertSystemEffects());
}

export async function runReplayCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = commandArgsOrExit(argv, REPLAY_OPTIONS, 1, { name: 'replay', usage: REPLAY_USAGE, io });
  if (typeof args === 'number') return args;
  const log = readLogForCommand(args.positionals[0], 'replay', io);
  if (!log) return 2;
  if (log.records[0] && log.records[0].seq !== 1) {
    io.stderr(`replay: the log starts at record ${log.records[0].seq} (older segments were rotated away); replay needs the whole run\n`);
    return 2;
  }
  const today = machinesSha256();
  if (log.header.machinesSha256 !== today) {
    const hashes = `recorded by ${log.header.machinesSha256.slice(0, 12)}, today ${today.slice(0, 12)}`;
    if (args.values['allow-definition-change'] !== true) {
      io.stderr(
        `replay: the machine definitions differ from the ones that recorded this log (${hashes}): re-record it ` +
          '(test/fixtures/eventlogs: npm run record:eventlog), or pass --allow-definition-change to replay it anyway\n',
      );
      return 1;
    }
    io.stderr(`replay: warning: the machine definitions differ from the ones that recorded this log (${hashes})\n`);
  }
  const result = replay(log.records, { machine: replayMachine(), rootSystemId: 'supervisor' });
  if (result.ok) {
    io.stdout(`replay: identical: ${result.records} records, ${result.actors} actors, ${(result.simulatedMs / 1000).toFixed(3)}s simulated\n`);
    return 0;
  }
  const d = result.divergence;
  io.stdout(
    [
      `replay: diverged at seq ${d.seq}, actor ${d.actor} (after ${result.compared} identical records)`,
      ...(d.difference ? [`  field:    ${d.difference.field}: ${JSON.stringify(d.difference.expected) ?? '(absent)'} → ${JSON.stringify(d.difference.actual) ?? '(absent)'}`] : []),
      `  expected: ${d.expected ? JSON.stringify(strip(d.expected)) : '(nothing: the log ends here)'}`,
      `  actual:   ${d.actual ? JSON.stringify(strip(d.actual)) : '(nothing: the replay produced no such record)'}`,
      '',
    ].join('\n'),
  );
  return 1;
}

function strip(r: { t: number; wall: string }) {
  const { wall: _wall, t: _t, ...rest } = r;
  return rest;
}
