/**
 * NewKubeletCommand's phases: parse the command line, start the debug server, feature gates,
 * validate the flags, load and validate the configuration, build the dependencies (here: open the
 * event log, whose place is known only now). Each answers with a small JSON summary.
 */
import { KubeletError } from '../../domain/errors.js';
import { resolveNodeName } from '../../domain/node/node-name.js';
import type { FieldError } from '../../ports/config-steps.js';
import type { PhaseDeps } from './deps.js';
import { phaseActor, type PhaseGroup } from './phase-actor.js';
import { settings } from './settings.js';

/** All field errors as one error, each line naming its field (the Go kubelet's aggregate). */
export function invalid(code: 'KLT_ERR_FLAG_INVALID' | 'KLT_ERR_CONFIG_INVALID', what: string, errors: FieldError[]): KubeletError {
  const lines = errors.map((e) => `  ${e.field}: ${e.message}`);
  return new KubeletError(code, `${what}:\n${lines.join('\n')}`);
}

export function commandPhases(deps: PhaseDeps) {
  const { live } = deps;
  return {
    'command.parse': phaseActor(async () => {
      const parsed = deps.config.parse(deps.argv);
      live.parsed.set(parsed);
      return { given: parsed.given };
    }),
    'command.debugServer': phaseActor(async () => {
      const address = settings.debugAddress(live);
      if (address === '') {
        deps.debugServer.off();
        return { enabled: false };
      }
      const server = await deps.debugServer.start(address);
      deps.lifetimes.add('debugServer', server.close);
      if (server.listening !== false) deps.logger.info({ address: server.address }, 'Debug server listening');
      return { enabled: true, address: server.address };
    }),
    'command.featureGates': phaseActor(async () => {
      const gates = deps.config.featureGates(live.parsed.require());
      live.gates.set(gates);
      return { gates };
    }),
    'command.validateFlags': phaseActor(async () => {
      const errors = deps.config.validateFlags(live.parsed.require());
      if (errors.length > 0) throw invalid('KLT_ERR_FLAG_INVALID', 'invalid flags', errors);
      return { valid: true };
    }),
    'command.loadConfigFile': phaseActor(async () => {
      const { config, gates, strictDecodingErrors } = await deps.config.load(live.parsed.require());
      live.config.set(config);
      live.gates.set(gates);
      // Go's DecodeKubeletConfiguration: strict decoding failed on these alone, so it decodes leniently and goes on.
      for (const err of strictDecodingErrors) deps.logger.warn({ err }, 'Using lenient decoding as strict decoding failed');
      return strictDecodingErrors.length > 0 ? { config, strictDecodingErrors } : { config };
    }),
    'command.validateConfig': phaseActor(async () => {
      const errors = deps.config.validateConfig(live.config.require(), live.gates.peek() ?? {});
      if (errors.length > 0) throw invalid('KLT_ERR_CONFIG_INVALID', 'invalid configuration', errors);
      const notActedOn = deps.config.notActedOn();
      for (const w of notActedOn) deps.logger.warn({ field: w.field, value: w.value, goWould: w.goWould }, 'Setting accepted but not acted on by kubelet-ts');
      return { valid: true, notActedOn: notActedOn.map((w) => w.field) };
    }),
    'command.dependencies': phaseActor(async () => {
      const path = settings.eventLog(live);
      if (path === '') {
        deps.journal.disable();
        return { eventLog: null };
      }
      // The journal header names the node; compute it as run.nodeName will (same function).
      const { nodeName } = resolveNodeName({ hostnameOverride: settings.hostnameOverride(live), osHostname: deps.hostname.hostname() });
      // Not a lifetime: the daemon closes the journal after the supervisor's very last record.
      const journal = await deps.journal.open({ path, nodeName, config: live.config.require() });
      return { eventLog: journal.path };
    }),
  } satisfies PhaseGroup;
}
