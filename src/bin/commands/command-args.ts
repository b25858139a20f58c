/**
 * The command line of our own subcommands (replay, report, graph, visualize, runtime serve), read
 * with node:util's parseArgs, strictly: `--flag value` and `--flag=value`, the last of a repeated
 * flag wins, and every mistake is a UsageError whose message names the flag or word at fault
 * (`unknown flag: --bogus`, `flag needs a value: --listen`, `unexpected argument: extra`).
 * The kubelet's own flags are not read here: they follow Go's pflag (src/domain/config).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandIo } from '../io.js';

/** The option table parseArgs takes (its type is not exported under a name of its own). */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

export class UsageError extends Error {}

export interface CommandArgs<T extends CommandOptions> {
  values: ReturnType<typeof parseStrict<T>>['values'];
  positionals: string[];
}

function parseStrict<T extends CommandOptions>(args: string[], options: T) {
  return parseArgs({ args, options, strict: true, allowPositionals: true });
}

/** Reads `argv` against `options`, allowing at most `maxPositionals` words; throws UsageError. */
export function parseCommandArgs<T extends CommandOptions>(argv: string[], options: T, maxPositionals: number): CommandArgs<T> {
  let parsed: ReturnType<typeof parseStrict<T>>;
  try {
    parsed = parseStrict(argv, options);
  } catch (err) {
    throw new UsageError(describeParseError(err));
  }
  for (const [name, spec] of Object.entries(options)) {
    // `--flag=` is a flag without a value, as `--flag` at the end is.
    if (spec.type === 'string' && (parsed.values as Record<string, unknown>)[name] === '') throw new UsageError(`flag needs a value: --${name}`);
  }
  const extra = parsed.positionals[maxPositionals];
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * A subcommand's arguments, or its exit code when there is nothing more to do: 2 after a usage
 * mistake (`<command>: <mistake>` and the usage on stderr), 0 after `--help`/`-h` when the command
 * has a `help` flag (the usage on stdout).
 */
export function commandArgsOrExit<T extends CommandOptions>(
  argv: string[],
  options: T,
  maxPositionals: number,
  command: { name: string; usage: string; io: CommandIo },
): CommandArgs<T> | number {
  let args: CommandArgs<T>;
  try {
    args = parseCommandArgs(argv, options, maxPositionals);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    command.io.stderr(`${command.name}: ${err.message}\n${command.usage}`);
    return 2;
  }
  if ((args.values as Record<string, unknown>).help === true) {
    command.io.stdout(command.usage);
    return 0;
  }
  return args;
}

/** parseArgs' errors, said in a line that names the flag. */
function describeParseError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const flag = /'(-[^'\s=<]+)/.exec(message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag: ${flag}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return message.includes('does not take an argument') ? `flag takes no value: ${flag}` : `flag needs a value: ${flag}`;
    default:
      throw err;
  }
}
