/**
 * The configuration loader's steps for the supervisor's command.* phases, over the config module
 * (src/domain/config, src/adapters/config-file) — the same code path as `kubelet-ts config`.
 *
 * Where we differ from the Go kubelet's split: the loader decodes, defaults, merges and validates
 * in one pass, so a file's wrong type or wrong apiVersion is reported with the validation errors in
 * command.validateConfig (together, every field named) rather than in command.loadConfigFile.
 * Unreadable or unparsable files still fail command.loadConfigFile. A duplicated key or an unknown
 * field fails nothing: command.loadConfigFile logs it, as Go's lenient decoding does.
 */
import { loadKubeletConfiguration } from '../adapters/config-file/load-kubelet-configuration.js';
import type { ConfigSteps, FieldError, NotHonoured, ParsedArgs } from '../ports/config-steps.js';
import { invalid } from '../actors/phases/command-phases.js';
import { withAbsoluteFlags } from '../domain/config/absolute-paths.js';
import { parseCommandLine, type ParsedCommandLine } from '../domain/config/command-line.js';
import { configzBody as body, type ConfigzBody } from '../domain/config/configz.js';
import { resolveFeatureGates } from '../domain/config/feature-gates.js';
import type { KubeletConfiguration } from '../domain/config/types.js';
import { validateKubeletFlags } from '../domain/config/validate.js';

export function createConfigSteps(): ConfigSteps {
  let parsed: ParsedCommandLine | null = null;
  let loadErrors: FieldError[] = [];
  let notActedOn: NotHonoured[] = [];
  const need = () => {
    if (!parsed) throw new Error('command line used before command.parse');
    return parsed;
  };
  return {
    parse(argv) {
      // Relative paths are made absolute here, once, against the directory the kubelet was started in.
      parsed = withAbsoluteFlags(parseCommandLine(argv), process.cwd());
      return { flags: parsed.flags, given: parsed.given } satisfies ParsedArgs;
    },
    featureGates() {
      const flagGates = (need().configFromFlags.featureGates ?? {}) as Record<string, boolean>;
      const { gates, errors } = resolveFeatureGates({ field: '--feature-gates', gates: flagGates });
      if (errors.length > 0) throw invalid('KLT_ERR_CONFIG_INVALID', 'invalid feature gates', errors);
      return { ...gates };
    },
    validateFlags: () => validateKubeletFlags(need().flags),
    async load() {
      const loaded = await loadKubeletConfiguration(need());
      loadErrors = loaded.errors;
      notActedOn = loaded.notHonoured;
      return { config: loaded.config, gates: { ...loaded.gates }, strictDecodingErrors: loaded.warnings };
    },
    validateConfig: () => loadErrors,
    notActedOn: () => notActedOn,
  };
}

export const configzBody: (config: KubeletConfiguration, gates: Record<string, boolean>, notActedOn: readonly NotHonoured[]) => ConfigzBody = body;
