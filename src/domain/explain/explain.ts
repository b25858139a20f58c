/**
 * `explain`'s core: which pod a query names, its history, and every cause family's reading of it
 * merged into one story.
 */
import type { JournalRecord } from '../journal/record.js';
import { closestNames } from './closest-names.js';
import { FAMILIES } from './families.js';
import { podHistory } from './pod-history.js';
import { knownPods, type KnownPod } from './pod-identities.js';
import type { FamilyExplainer, PodIdentity, PodNotFound, Story, StoryLine } from './story.js';

/** `query`: `namespace/name`, a name that is one namespace's only, or a pod uid. */
export function explainPod(records: readonly JournalRecord[], query: string, families: readonly FamilyExplainer[] = FAMILIES): Story | PodNotFound {
  const pods = knownPods(records);
  const found = findPod([...pods.values()], query);
  if ('notFound' in found) return found;
  const history = podHistory(records, found);
  const lines = families.flatMap((family) => family(history));
  const first = records[0];
  return {
    pod: found,
    lines: foldRepeats(sortLines(lines)),
    ...(first !== undefined && first.seq > 1 ? { historyFrom: first.seq } : {}),
  };
}

export const isPodNotFound = (answer: Story | PodNotFound): answer is PodNotFound => 'notFound' in answer;

/** By time, then by the first record cited: lines read from one record keep their families' order. */
export function sortLines(lines: readonly StoryLine[]): StoryLine[] {
  return [...lines].sort((a, b) => a.t - b.t || (a.cites[0] ?? 0) - (b.cites[0] ?? 0));
}

/**
 * A line the same as the one before it (same family, same text: a failure retried with back-off)
 * is folded into it: the story says it once, how many times and until when, citing every record.
 */
export function foldRepeats(lines: readonly StoryLine[]): StoryLine[] {
  const out: StoryLine[] = [];
  for (const line of lines) {
    const last = out.at(-1);
    if (last && last.family === line.family && last.text === line.text) {
      out[out.length - 1] = { ...last, cites: [...last.cites, ...line.cites], repeated: { times: (last.repeated?.times ?? 1) + (line.repeated?.times ?? 1), lastT: line.repeated?.lastT ?? line.t } };
    } else out.push(line);
  }
  return out;
}

function findPod(pods: KnownPod[], query: string): PodIdentity | PodNotFound {
  const byUid = pods.find((p) => p.uid === query);
  if (byUid) return identity(byUid);
  const slash = query.indexOf('/');
  const matching = slash >= 0
    ? pods.filter((p) => p.namespace === query.slice(0, slash) && p.name === query.slice(slash + 1))
    : pods.filter((p) => p.name === query);
  const names = [...new Set(matching.map(fullName))];
  if (names.length > 1) return { notFound: query, closest: names.sort(), ambiguous: true };
  // One name held by several uids (deleted and made again): the latest is the one asked for.
  const latest = matching.sort((a, b) => b.lastSeq - a.lastSeq)[0];
  if (latest) return identity(latest);
  return { notFound: query, closest: closestNames(query, [...new Set(pods.map(fullName))]) };
}

const fullName = (p: PodIdentity) => `${p.namespace}/${p.name}`;
const identity = ({ uid, namespace, name }: PodIdentity): PodIdentity => ({ uid, namespace, name });
