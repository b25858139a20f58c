/**
 * `kubelet-ts config [flags]`: the effective KubeletConfiguration as JSON (apiVersion, kind and every
 * field, defaulted; 2-space indent) on stdout, exit 0. Invalid input: every problem on stderr, one
 * per line, each naming its field or flag, exit 1. Deprecation notices for the flags used, a warning
 * for each duplicated key or unknown field of the files (Go's lenient decoding), and a warning for
 * each setting accepted but not acted on go to stderr and do not change the exit code. `--help` and
 * `--version` behave as for the kubelet.
 */
import { KubeletError } from '../../domain/errors.js';
import { formatUsage } from '../../domain/config/usage.js';
import { rawVersionInfo, versionLine } from '../../domain/config/version.js';
import { parseCommandLine } from '../../domain/config/command-line.js';
import { describeNotHonoured } from '../../domain/config/not-honoured.js';
import {
  loadKubeletConfiguration,
  nodeConfigFileSystem,
  type ConfigFileSystem,
} from '../../adapters/config-file/load-kubelet-configuration.js';

export interface ConfigCommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Replaces reading files (tests); defaults to node:fs. */
  readFile?: (path: string) => Promise<string>;
  /** Replaces listing the --config-dir (tests); defaults to a recursive node:fs walk. */
  listFiles?: (dir: string) => Promise<string[]>;
}

export async function runConfigCommand(argv: string[], io: ConfigCommandIO): Promise<number> {
  const fs: ConfigFileSystem = {
    readFile: io.readFile ?? nodeConfigFileSystem.readFile,
    listFiles: io.listFiles ?? nodeConfigFileSystem.listFiles,
  };
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.help) {
      io.stdout(formatUsage());
      return 0;
    }
    if (parsed.version) {
      io.stdout(`${parsed.versionRaw ? rawVersionInfo() : versionLine()}\n`);
      return 0;
    }
    for (const warning of parsed.warnings) io.stderr(`${warning}\n`);
    const loaded = await loadKubeletConfiguration(parsed, fs);
    for (const w of loaded.warnings) io.stderr(`warning: Using lenient decoding as strict decoding failed: ${w}\n`);
    if (loaded.errors.length > 0) {
      for (const error of loaded.errors) io.stderr(`${error.message}\n`);
      return 1;
    }
    for (const w of loaded.notHonoured) io.stderr(`warning: ${describeNotHonoured(w)}\n`);
    io.stdout(`${JSON.stringify(loaded.config, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof KubeletError)) throw err;
    io.stderr(`${err.message}\n`);
    return 1;
  }
}
