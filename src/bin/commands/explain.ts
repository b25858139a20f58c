/**
 * `kubelet-ts explain LOG POD [--json]`: a pod's life told from the journal alone (src/domain/explain).
 * POD is `namespace/name`, a name one namespace alone has, or a uid. Exit 0: told; 1: the log knows
 * no such pod (the closest names on stderr, and with --json as `{notFound, closest}` on stdout); 2: the log cannot be read, or a usage mistake. Works on
 * a live daemon's log (a torn last line is skipped) and on rotated ones (from their first checkpoint).
 * The log is streamed, twice: memory holds the pods' identities and the one pod's history, not the log.
 */
import { explainPodInPasses, isPodNotFound } from '../../domain/explain/explain.js';
import { renderNotFound, renderStory, storyJson } from '../../domain/explain/render-story.js';
import type { CommandIo } from '../io.js';
import { commandArgsOrExit } from './command-args.js';
import { streamLogForCommand } from './read-log.js';

const USAGE = 'usage: kubelet-ts explain LOG POD [--json]\n';

export async function runExplainCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = commandArgsOrExit(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 2, { name: 'explain', usage: USAGE, io });
  if (typeof args === 'number') return args;
  const [path, query] = args.positionals;
  if (path === undefined || query === undefined) {
    io.stderr(`explain: ${path === undefined ? 'LOG' : 'POD'} is missing\n${USAGE}`);
    return 2;
  }
  // Read twice rather than held: a run's log is up to 8 segments of 64 MiB.
  const answer = streamLogForCommand(path, 'explain', io, (pass) => explainPodInPasses(pass, query));
  if (!answer) return 2;
  const json = args.values.json === true;
  if (isPodNotFound(answer)) {
    // A tool reads the closest names from stdout; a person reads the message.
    if (json) io.stdout(storyJson(answer));
    io.stderr(`explain: ${renderNotFound(answer)}`);
    return 1;
  }
  io.stdout(json ? storyJson(answer) : renderStory(answer));
  return 0;
}
