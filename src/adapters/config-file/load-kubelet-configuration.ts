/**
 * The one code path from a command line to an effective configuration, used by the supervisor
 * (command.parse … command.validateConfig) and by `kubelet-ts config`: parse the flags, read
 * --config and the --config-dir drop-ins from disk, and build, default, merge and validate.
 *
 * Throws KubeletError: KLT_ERR_FLAG_UNKNOWN / KLT_ERR_FLAG_INVALID (command line),
 * KLT_ERR_CONFIG_READ (a file or the drop-in directory cannot be read), KLT_ERR_CONFIG_PARSE
 * (syntax, several documents, an empty --config). Wrong types, a wrong apiVersion or kind, bad gates
 * and invalid values come back in `errors`, all of them, each naming its field. Duplicated keys and
 * unknown fields, which fail only Go's strict decoding, come back in `warnings`: the configuration
 * is the lenient one (a duplicated key's last value, no unknown field), as Go starts with.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import { parseCommandLine, type ParsedCommandLine } from '../../domain/config/command-line.js';
import { withAbsoluteConfigPaths, withAbsoluteFlags } from '../../domain/config/absolute-paths.js';
import { buildEffectiveConfig } from '../../domain/config/effective.js';
import type { FeatureGates } from '../../domain/config/feature-gates.js';
import type { NotHonoured } from '../../domain/config/not-honoured.js';
import type { FieldError, KubeletConfiguration } from '../../domain/config/types.js';
import { readRegularFile } from '../bounded-input/read-regular-file.js';
import { parseConfigText, type ParsedConfigText } from './parse-config-text.js';

/** File access, replaceable in tests. */
export interface ConfigFileSystem {
  readFile(path: string): Promise<string>;
  /** Every regular file below `dir`, recursively, as full paths in lexical walk order. */
  listFiles(dir: string): Promise<string[]>;
}

/**
 * The largest config or drop-in file read. Go has no limit (os.ReadFile); a KubeletConfiguration with
 * every field set is about 10 KiB, so 1 MiB leaves room for any real one while bounding what a
 * mistaken path (a log, /dev/urandom) costs to read and parse.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export const nodeConfigFileSystem: ConfigFileSystem = {
  // Regular files only, size checked first: a FIFO would block start-up, a device would never end.
  readFile: async (path) => (await readRegularFile(path, MAX_CONFIG_BYTES)).text,
  async listFiles(dir) {
    // Go walks the drop-in directory with filepath.WalkDir: lexical order, descending into subdirectories.
    const out: string[] = [];
    const walk = async (d: string): Promise<void> => {
      const entries = (await readdir(d, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const full = join(d, entry.name);
        if (entry.isDirectory()) await walk(full);
        else out.push(full);
      }
    };
    await walk(dir);
    return out;
  },
};

export interface LoadedKubeletConfiguration {
  parsed: ParsedCommandLine;
  config: KubeletConfiguration;
  gates: FeatureGates;
  /** Settings accepted but not acted on: warnings, not errors. */
  notHonoured: NotHonoured[];
  /** Strict decoding's errors, each naming its file and field: Go logs them and decodes leniently. */
  warnings: string[];
  errors: FieldError[];
}

/** Only files with this extension in --config-dir are drop-ins (Go: dropinFileExtension). */
export const DROP_IN_EXTENSION = '.conf';

/**
 * `cwd` is the directory relative paths start at: the process's, read once here, so every part of
 * the kubelet (and every process it hands a path to) sees the same absolute paths.
 */
export async function loadKubeletConfiguration(
  argvOrParsed: readonly string[] | ParsedCommandLine,
  fs: ConfigFileSystem = nodeConfigFileSystem,
  cwd: string = process.cwd(),
): Promise<LoadedKubeletConfiguration> {
  const parsed = isParsed(argvOrParsed) ? argvOrParsed : parseCommandLine(argvOrParsed);
  const { kubeletConfigFile: fileName, kubeletDropinConfigDirectory: dropInDir } = parsed.flags;

  let file: ParsedConfigText | undefined;
  if (fileName !== '') {
    const text = await read(fs, fileName, 'kubelet config file');
    if (text.trim() === '') throw new KubeletError('KLT_ERR_CONFIG_PARSE', `failed to load kubelet config file ${fileName}: the file was empty`);
    file = parseConfigText(text, fileName);
  }

  const dropIns: { name: string; doc: unknown; strictErrors: string[] }[] = [];
  if (dropInDir !== '') {
    let names: string[];
    try {
      names = await fs.listFiles(dropInDir);
    } catch (err) {
      throw new KubeletError('KLT_ERR_CONFIG_READ', `failed to walk through kubelet dropin directory ${JSON.stringify(dropInDir)}: ${(err as Error).message}`, { cause: err });
    }
    for (const name of names.filter((n) => n.endsWith(DROP_IN_EXTENSION))) {
      const text = await read(fs, name, 'kubelet drop-in config file');
      if (text.trim() === '') continue; // Go skips an empty drop-in
      const { value, strictErrors } = parseConfigText(text, name);
      dropIns.push({ name, doc: value, strictErrors });
    }
  }

  const built = buildEffectiveConfig({ parsed, ...(file !== undefined ? { file: file.value, fileName, fileStrictErrors: file.strictErrors } : {}), dropIns });
  return {
    parsed: withAbsoluteFlags(parsed, cwd),
    config: withAbsoluteConfigPaths(built.config, cwd),
    gates: built.gates,
    notHonoured: built.notHonoured,
    warnings: built.warnings,
    errors: built.errors,
  };
}

async function read(fs: ConfigFileSystem, path: string, what: string): Promise<string> {
  try {
    return await fs.readFile(path);
  } catch (err) {
    throw new KubeletError('KLT_ERR_CONFIG_READ', `failed to read ${what} ${JSON.stringify(path)}: ${(err as Error).message}`, { cause: err });
  }
}

function isParsed(value: readonly string[] | ParsedCommandLine): value is ParsedCommandLine {
  return !Array.isArray(value);
}
