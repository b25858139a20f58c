import pino from 'pino';
import { createActor, toPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import { commandPhases } from '../../../src/actors/phases/command-phases.js';
import type { PhaseDeps } from '../../../src/actors/phases/deps.js';
import { createLiveState } from '../../../src/actors/phases/live-state.js';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { flagOnlyDefaultConfiguration } from '../../../src/domain/config/defaults.js';
import type { PhaseInput } from '../../../src/machines/supervisor.machine.js';
import type { ConfigSteps } from '../../../src/ports/config-steps.js';

/** command.loadConfigFile over a loader that answers `strictDecodingErrors`; the log lines it wrote. */
async function loadConfigFile(strictDecodingErrors: string[]) {
  const lines: { level: number; msg: string; err?: unknown }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const live = createLiveState();
  live.parsed.set(parseCommandLine([]));
  const config = flagOnlyDefaultConfiguration({});
  const steps: Pick<ConfigSteps, 'load'> = { load: async () => ({ config, gates: {}, strictDecodingErrors }) };
  // Only what command.loadConfigFile reads: the loader, the logger and the live slots.
  const deps = { live, logger, config: steps } as unknown as PhaseDeps;
  const input: PhaseInput = { phase: 'command.loadConfigFile', outputs: {} };
  const actor = createActor(commandPhases(deps)['command.loadConfigFile'], { input }).start();
  const output = await toPromise(actor);
  return { output, lines };
}

describe('command.loadConfigFile', () => {
  it('logs each strict decoding error as a warning, as Go\'s lenient decoding does, and journals them in its output', async () => {
    const errors = ['/k.yaml: strict decoding error: unknown field "colour"', '/k.yaml: strict decoding error: line 4: key "maxPods" already set in map'];
    const { output, lines } = await loadConfigFile(errors);
    expect(lines.map((l) => [l.level, l.msg, l.err])).toEqual(errors.map((e) => [40, 'Using lenient decoding as strict decoding failed', e]));
    expect(output).toMatchObject({ strictDecodingErrors: errors });
  });

  it('logs nothing and keeps its output as it was when strict decoding succeeded', async () => {
    const { output, lines } = await loadConfigFile([]);
    expect(lines).toEqual([]);
    expect(Object.keys(output)).toEqual(['config']);
  });
});
