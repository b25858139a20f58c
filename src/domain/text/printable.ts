/**
 * Text from pods and peers (a probe's output, pod names, messages) made safe for a terminal: a
 * control character in it would act on the reader's terminal instead of being read (`ESC ]0;…BEL`
 * retitles the window, `ESC [2J` clears it). The text renderers of `explain`, `replay` and `report`
 * pass each line they print through `printable`; their `--json` forms keep the exact text.
 * Backslashes are left as they are, so the escaped form is for reading, not for decoding back.
 */

/** Every Unicode control character (Cc: C0, DEL, C1). ESC sequences lose their ESC and print as text. */
const CONTROL = /\p{Cc}/gu;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One line for a terminal: each control character shows as JavaScript writes it (`\n`, `\r`, `\t`, else `\x1b`). */
export function printable(line: string): string {
  return line.replace(CONTROL, (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
