/**
 * `kubelet-ts replay LOG`: feed the log's inputs to a fresh supervisor whose effects are inert,
 * regenerate every derived record and compare. Identical: exit 0 and one summary line. Divergent:
 * exit 1 with the first divergent record, expected against actual. A log recorded by other machine
 * definitions (its header's hash is not today's): exit 1 before replaying, naming both hashes, unless
 * --allow-definition-change asks to replay it anyway. Not a log, or another format version: exit 2.
 * A log whose first segments were rotated away replays from its first checkpoint (the system as it
 * was, journaled after each rotation); `--from SEQ` starts from the last checkpoint at or before SEQ.
 */
import type { AnyStateMachine } from 'xstate';
import { replay } from '../../actors/journal/replay.js';
import type { JournalRecord } from '../../domain/journal/record.js';
import { printable } from '../../domain/text/printable.js';
import type { CommandIo } from '../io.js';
import { machinesSha256 } from '../machines.js';
import { inertSystemEffects, provideSystem } from '../system.js';
import { commandArgsOrExit } from './command-args.js';
import { readLogForCommand } from './read-log.js';

const REPLAY_OPTIONS = { 'allow-definition-change': { type: 'boolean' }, from: { type: 'string' } } as const;
const REPLAY_USAGE = 'usage: kubelet-ts replay [--allow-definition-change] [--from SEQ] LOG\n';

/**
 * Where the replay starts: the log's first record for a whole run; else (`--from SEQ`, or a log whose
 * first segments were rotated away) the last checkpoint at or before SEQ, or the log's first one.
 */
function startingPoint(records: readonly JournalRecord[], fromText: string | undefined, io: CommandIo): JournalRecord | undefined | 'refused' {
  const whole = records[0]?.seq === 1;
  if (fromText === undefined && whole) return undefined;
  const wanted = fromText === undefined ? -1 : Number(fromText);
  if (fromText !== undefined && !(Number.isSafeInteger(wanted) && wanted > 0)) {
    io.stderr(`replay: --from must be a record's seq (a positive whole number), not ${JSON.stringify(fromText)}\n`);
    return 'refused';
  }
  const checkpoints = records.filter((r) => r.type === 'checkpoint');
  const chosen = wanted < 0 ? checkpoints[0] : checkpoints.filter((r) => r.seq <= wanted).at(-1);
  if (chosen) return chosen;
  if (whole && wanted > 0) return undefined;
  io.stderr(
    wanted < 0
      ? `replay: the log starts at record ${records[0]?.seq ?? '?'} (older segments were rotated away) and holds no checkpoint to start from\n`
      : `replay: no checkpoint at or before seq ${wanted}, and the log does not start at record 1\n`,
  );
  return 'refused';
}

/** The system with every effect inert: the log answers for them. */
export function replayMachine() {
  return provideSystem(inertSystemEffects());
}

/** `machine`: the system to replay with (tests hand it deliberately changed machines). */
export async function runReplayCommand(argv: string[], io: CommandIo, machine: AnyStateMachine = replayMachine()): Promise<number> {
  const args = commandArgsOrExit(argv, REPLAY_OPTIONS, 1, { name: 'replay', usage: REPLAY_USAGE, io });
  if (typeof args === 'number') return args;
  const log = readLogForCommand(args.positionals[0], 'replay', io);
  if (!log) return 2;
  const from = startingPoint(log.records, args.values.from, io);
  if (from === 'refused') return 2;
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
  const result = replay(log.records, { machine, rootSystemId: 'supervisor', ...(from ? { from } : {}) });
  if (result.ok) {
    const start = from ? ` from the checkpoint at seq ${from.seq}` : '';
    io.stdout(`replay: identical${start}: ${result.records} records, ${result.actors} actors, ${(result.simulatedMs / 1000).toFixed(3)}s simulated\n`);
    return 0;
  }
  const d = result.divergence;
  // The records compared hold pods' and peers' text: JSON.stringify leaves DEL and C1 raw.
  io.stdout(
    [
      `replay: diverged at seq ${d.seq}, actor ${d.actor} (after ${result.compared} identical records)`,
      ...(d.difference ? [`  field:    ${d.difference.field}: ${JSON.stringify(d.difference.expected) ?? '(absent)'} → ${JSON.stringify(d.difference.actual) ?? '(absent)'}`] : []),
      `  expected: ${d.expected ? JSON.stringify(strip(d.expected)) : '(nothing: the log ends here)'}`,
      `  actual:   ${d.actual ? JSON.stringify(strip(d.actual)) : '(nothing: the replay produced no such record)'}`,
      '',
    ].map(printable).join('\n'),
  );
  return 1;
}

function strip(r: { t: number; wall: string }) {
  const { wall: _wall, t: _t, ...rest } = r;
  return rest;
}
