/**
 * What `kubelet-ts explain` tells of a pod in a test kubelet's journal: the story as the command
 * prints it as JSON, each line checked to cite records the log holds, then the lines of the families
 * asked for as text with what must vary between runs normalised: container and sandbox ids (12 hex
 * digits as the story shortens them) become `<id>`.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import type { CauseFamily, Story } from '../../src/domain/explain/story.js';
import { runKubeletCommand } from './kubelet-bin.js';

export const journalOf = (nodeDir: string) => join(nodeDir, 'root', 'events', 'latest.jsonl');

/** The pod's story (`namespace/name`) from the journal, its lines of `families` as normalised text. */
export function explainedLines(journal: string, pod: string, families: readonly CauseFamily[]): string[] {
  const r = runKubeletCommand('explain', [journal, pod, '--json']);
  if (r.status !== 0) throw new Error(`explain ${pod}: exit ${r.status}: ${r.stderr}`);
  const story = JSON.parse(r.stdout) as Story;
  const seqs = new Set(readJournal(journal).records.map((rec) => rec.seq));
  for (const line of story.lines) {
    expect(line.cites.length, line.text).toBeGreaterThan(0);
    for (const seq of line.cites) expect(seqs.has(seq), `${line.text} cites #${seq}`).toBe(true);
  }
  // Printed so a failure shows the whole story, not only the lines asserted.
  console.log(`explain ${pod}:\n${story.lines.map((l) => `  ${l.family}: ${l.text}  [${l.cites.join(' ')}]`).join('\n')}`);
  return story.lines.filter((l) => families.includes(l.family)).map((l) => l.text.replace(/\b[0-9a-f]{12}\b/g, '<id>'));
}
