/**
 * The node's journal beside a run's results, and `explain` tried on the pods of each spec that did
 * not pass: a test that explain answers for the pods a real failure left, and a first reading of
 * why. A spec's pods are the journal's pods in the namespaces its report names, those its output
 * names first; a few are told, their stories kept in the results.
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { explainPod, isPodNotFound } from '../../src/domain/explain/explain.js';
import { knownPods } from '../../src/domain/explain/pod-identities.js';
import { renderNotFound, renderStory } from '../../src/domain/explain/render-story.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';
import type { SpecResult } from './junit.js';

/** Stories kept per failed spec: enough to show explain answers without filling the results. */
export const PODS_PER_SPEC = 2;

export interface PodExplanation {
  /** `namespace/name`. */
  pod: string;
  /** explain's answer as the command prints it. */
  answer: string;
}

export interface SpecExplanation {
  spec: string;
  namespaces: string[];
  pods: PodExplanation[];
  /** Why no pod was told, when none was. */
  note?: string;
}

export function explainFailedSpecs(specs: readonly SpecResult[], records: readonly JournalRecord[]): SpecExplanation[] {
  const failed = specs.filter((s) => s.status !== 'passed' && s.status !== 'skipped');
  if (failed.length === 0) return [];
  const pods = [...knownPods(records).values()];
  return failed.map((spec) => {
    const namespaces = spec.namespaces ?? [];
    const base = { spec: spec.name, namespaces };
    if (namespaces.length === 0) return { ...base, pods: [], note: 'the report names no test namespace' };
    const named = (p: { name: string }) => (spec.pods?.includes(p.name) ? 0 : 1);
    const mine = pods.filter((p) => namespaces.includes(p.namespace)).sort((a, b) => named(a) - named(b) || a.lastSeq - b.lastSeq).slice(0, PODS_PER_SPEC);
    if (mine.length === 0) return { ...base, pods: [], note: `the journal knows no pod in ${namespaces.join(', ')}` };
    return {
      ...base,
      pods: mine.map((p) => {
        const story = explainPod(records, p.uid);
        return { pod: `${p.namespace}/${p.name}`, answer: isPodNotFound(story) ? renderNotFound(story) : renderStory(story) };
      }),
    };
  });
}

/** explainFailedSpecs on the node's journal as it is now (a live kubelet's: a torn last line is skipped). */
export function explainFromJournal(specs: readonly SpecResult[], log: string): SpecExplanation[] {
  return explainFailedSpecs(specs, readJournal(log).records);
}

/** Copies the kubelet's events directory (every run file, rotated segments, `latest.jsonl`) to `to`. */
export function keepJournal(eventsDir: string, to: string): boolean {
  if (!existsSync(eventsDir)) return false;
  rmSync(to, { recursive: true, force: true });
  cpSync(eventsDir, to, { recursive: true, verbatimSymlinks: true });
  return true;
}
