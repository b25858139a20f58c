/**
 * A variable from an env file, as Go's kubelet reads one for `valueFrom.fileKeyRef` (EnvFiles):
 * a strict subset of POSIX shell assignments, `NAME='value'`, every value single-quoted and taken
 * literally (no escapes, no expansion), which may run over several lines. Blank lines and lines
 * starting with `#` are skipped, leading blanks ignored, a comment may follow the closing quote. A
 * blank between `=` and the value assigns '' (as a shell does); a blank before `=` is an error. The
 * file is read top down only until the key is found: a malformed line after it is never seen. Pure.
 */

export const ENV_FILES_GATE = 'EnvFiles';

/** Go scans the file by lines with bufio.Scanner, whose longest line is 64 KiB (MaxScanTokenSize). */
export const ENV_FILE_MAX_LINE_BYTES = 64 * 1024;

export type EnvFileLookup = { found: true; value: string } | { found: false } | { error: string };

const BLANKS = /^[ \t]+/;

/** Splits as bufio.ScanLines does: on `\n`, one trailing `\r` dropped, no empty last line. */
function scanLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export function lookUpEnvFile(text: string, key: string): EnvFileLookup {
  const lines = scanLines(text);
  const format = (at: number, what: string): EnvFileLookup => ({ error: `invalid environment variable format at line ${at}: ${what}` });
  // Go's scanner fails on the first line too long for it, whichever loop reads it.
  const tooLong = (i: number): EnvFileLookup | undefined =>
    (Buffer.byteLength(lines[i]!) >= ENV_FILE_MAX_LINE_BYTES ? { error: `line ${i + 1} is longer than ${ENV_FILE_MAX_LINE_BYTES - 1} bytes` } : undefined);
  for (let i = 0; i < lines.length; i++) {
    const refused = tooLong(i);
    if (refused) return refused;
    const line = lines[i]!.replace(BLANKS, '');
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq === -1) return format(i + 1, "missing '='");
    const namePart = line.slice(0, eq);
    const name = namePart.replace(/[ \t]+$/, '');
    if (name === '') return format(i + 1, 'empty variable name');
    if (name !== namePart) return format(i + 1, "whitespace before '=' is not allowed");
    const valuePart = line.slice(eq + 1);
    if (BLANKS.test(valuePart)) {
      // `KEY= 'v'` assigns '' to KEY, as a shell does; the rest of the line is not read.
      if (name === key) return { found: true, value: '' };
      continue;
    }
    if (!valuePart.startsWith("'")) return format(i + 1, 'value must be enclosed in single quotes');
    const start = i + 1;
    let rest = valuePart.slice(1);
    let value = '';
    for (;;) {
      const close = rest.indexOf("'");
      if (close !== -1) {
        value += rest.slice(0, close);
        const after = rest.slice(close + 1).replace(BLANKS, '');
        if (after !== '' && !after.startsWith('#')) return format(i + 1, 'unexpected content after closing quote');
        if (name === key) return { found: true, value };
        break;
      }
      value += `${rest}\n`;
      i++;
      if (i >= lines.length) return { error: `invalid environment variable format starting at line ${start}: unclosed single quote` };
      const longLine = tooLong(i);
      if (longLine) return longLine;
      rest = lines[i]!;
    }
  }
  return { found: false };
}
