/**
 * A story as text: a heading naming the pod, then one line per step with its time since the pod's
 * first line, the text, and the journal records it was read from (`[#451 #452]`, for `replay --from`
 * and the visualizer). And the forms a not-found answer takes. Names and texts come from pods, so each
 * line printed goes through `printable`; the JSON form keeps them exact.
 */
import { printable } from '../text/printable.js';
import type { PodNotFound, Story } from './story.js';

export function renderStory(story: Story): string {
  const { pod } = story;
  const out = [`pod ${pod.namespace}/${pod.name} (uid ${pod.uid})`];
  if (story.historyFrom !== undefined) out.push(`  (the log starts at record #${story.historyFrom}: earlier history was rotated away)`);
  const start = story.lines[0]?.t ?? 0;
  for (const line of story.lines) {
    const again = line.repeated ? ` (${line.repeated.times} times, the last at ${relativeTime(line.repeated.lastT - start)})` : '';
    out.push(`  ${relativeTime(line.t - start)}  ${line.text}${again}  [${line.cites.map((s) => `#${s}`).join(' ')}]`);
  }
  if (story.lines.length === 0) out.push(story.historyFrom !== undefined ? '  nothing more about this pod since' : '  nothing journaled about this pod');
  return out.map(printable).join('\n') + '\n';
}

/** `+12.345s`. */
export function relativeTime(ms: number): string {
  return `+${(ms / 1000).toFixed(3)}s`;
}

export function renderNotFound(answer: PodNotFound): string {
  return `${printable(notFoundLine(answer))}\n`;
}

function notFoundLine(answer: PodNotFound): string {
  if (answer.ambiguous) return `pod "${answer.notFound}" is in several namespaces: ${answer.closest.join(', ')}; name one as namespace/name`;
  const closest = answer.closest.length > 0 ? `; closest: ${answer.closest.join(', ')}` : '; the log knows no pod';
  return `no pod "${answer.notFound}" in the log${closest}`;
}

/** The JSON form, for tools: the story as is, each line with its family; or the not-found answer. */
export function storyJson(story: Story | PodNotFound): string {
  return JSON.stringify(story, null, 2) + '\n';
}
