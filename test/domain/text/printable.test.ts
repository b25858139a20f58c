import { describe, expect, it } from 'vitest';
import { printable } from '../../../src/domain/text/printable.js';

describe('printable', () => {
  it('shows the escape sequences that retitle and clear a terminal as text, without their ESC and BEL', () => {
    const shown = printable('ok\u001b]0;owned\u0007\u001b[2J');
    expect(shown).toBe('ok\\x1b]0;owned\\x07\\x1b[2J');
    expect(shown).not.toMatch(/[\u001b\u0007]/);
  });

  it.each([
    ['NUL', '\u0000', '\\x00'],
    ['BS', '\b', '\\x08'],
    ['VT', '\v', '\\x0b'],
    ['FF', '\f', '\\x0c'],
    ['US', '\u001f', '\\x1f'],
    ['DEL', '\u007f', '\\x7f'],
    ['C1 NEL', '\u0085', '\\x85'],
    ['C1 CSI', '\u009b', '\\x9b'],
    ['C1 OSC', '\u009d', '\\x9d'],
    ['C1 APC', '\u009f', '\\x9f'],
  ])('escapes %s', (_name, raw, shown) => {
    expect(printable(`a${raw}b`)).toBe(`a${shown}b`);
  });

  it('escapes a line break and a tab inside a line, so text cannot forge the next line', () => {
    expect(printable('one\ntwo\r\n\tthree')).toBe('one\\ntwo\\r\\n\\tthree');
  });

  it('keeps printable text as it is: accents, symbols, emoji, no-break space, backslashes', () => {
    for (const text of ['Prüfung ✓', 'naïve café 日本語 🚀', 'a\u00a0b', 'C:\\temp\\x1b', '']) expect(printable(text)).toBe(text);
  });
});
