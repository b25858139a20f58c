/**
 * `explain`'s core: which pod a query names, its history, and every cause family's reading of it
 * merged into one story.
 */
import type { JournalRecord } from '../journal/record.js';
import { closestNames } from './closest-names.js';
import { FAMILIES } from './families.js';
import { PodHistoryCollector } from './pod-history.js';
import { PodIdentities, type KnownPod } from './pod-identities.js';
import type { FamilyExplainer, PodHistory, PodIdentity, PodNotFound, Story, StoryLine } from './story.js';

/**
 * One read of a journal's records, in order, each handed to `visit`. Explaining reads twice, and
 * keeps of all it reads only the pods' identities and the one pod's history.
 */
export type RecordPass = (visit: (record: JournalRecord) => void) => void;

/** `query`: `namespace/name`, a name that is one namespace's only, or a pod uid. */
export function explainPod(records: readonly JournalRecord[], query: string, families: readonly FamilyExplainer[] = FAMILIES): Story | PodNotFound {
  return explainPodInPasses((visit) => {
    for (const record of records) visit(record);
  }, query, families);
}

/** explainPod over a log read as a stream: the first pass finds the pod, the second its history. */
export function explainPodInPasses(pass: RecordPass, query: string, families: readonly FamilyExplainer[] = FAMILIES): Story | PodNotFound {
  const { found, firstSeq } = findInPass(pass, query);
  if ('notFound' in found) return found;
  const history = historyInPass(pass, found);
  const lines = families.flatMap((family) => family(history));
  return {
    pod: found,
    lines: foldRepeats(sortLines(lines)),
    ...(firstSeq !== undefined && firstSeq > 1 ? { historyFrom: firstSeq } : {}),
  };
}

// Each pass's collector goes with it: the families need the found pod and its history, not the identity table.

function findInPass(pass: RecordPass, query: string): { found: PodIdentity | PodNotFound; firstSeq: number | undefined } {
  const identities = new PodIdentities();
  let firstSeq: number | undefined;
  pass((record) => {
    firstSeq ??= record.seq;
    identities.add(record);
  });
  return { found: findPod([...identities.pods.values()], query), firstSeq };
}

function historyInPass(pass: RecordPass, pod: PodIdentity): PodHistory {
  const history = new PodHistoryCollector(pod);
  pass((record) => history.add(record));
  return history.history;
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
