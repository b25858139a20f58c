/**
 * A peer's text put into a message of ours, kept short: a message is logged, journaled and sent
 * back, so a list of thousands of entries or an entry of megabytes from a broken or hostile peer
 * must not become one. Short lists of short entries print whole, as Go prints them.
 */

/** Entries of a list printed in a message; the rest are counted. */
export const BRIEF_LIST_ENTRIES = 8;
/** Characters of one entry printed; the rest are counted. */
export const BRIEF_TEXT_CHARS = 128;

/** `text` whole when short, else its first BRIEF_TEXT_CHARS characters and how many were left out. */
export function briefText(text: string): string {
  return text.length <= BRIEF_TEXT_CHARS ? text : `${text.slice(0, BRIEF_TEXT_CHARS)}…(${text.length - BRIEF_TEXT_CHARS} more characters)`;
}

/** The first BRIEF_LIST_ENTRIES entries, each brief and `format`ted, space-separated, then how many were left out. */
export function briefList(entries: readonly string[], format: (entry: string) => string = (entry) => entry): string {
  const shown = entries.slice(0, BRIEF_LIST_ENTRIES).map((entry) => format(briefText(entry))).join(' ');
  const more = entries.length - BRIEF_LIST_ENTRIES;
  return more > 0 ? `${shown} …(${more} more)` : shown;
}
