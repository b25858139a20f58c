import { describe, expect, it } from 'vitest';
import { BRIEF_LIST_ENTRIES, BRIEF_TEXT_CHARS, briefList, briefText } from '../../../src/domain/text/brief-list.js';

describe('briefText', () => {
  it('keeps short text whole and cuts long text, counting what it left out', () => {
    expect(briefText('1.0.0')).toBe('1.0.0');
    expect(briefText('x'.repeat(BRIEF_TEXT_CHARS))).toBe('x'.repeat(BRIEF_TEXT_CHARS));
    expect(briefText('x'.repeat(BRIEF_TEXT_CHARS + 1_000_000))).toBe(`${'x'.repeat(BRIEF_TEXT_CHARS)}…(1000000 more characters)`);
  });
});

describe('briefList', () => {
  it('prints a short list whole, each entry formatted', () => {
    expect(briefList(['1.0.0', '1.5.0'], (v) => `"${v}"`)).toBe('"1.0.0" "1.5.0"');
    expect(briefList([])).toBe('');
  });

  it('prints the first entries of a long list and counts the rest', () => {
    const listed = briefList(Array.from({ length: 100_000 }, (_, i) => `${i}`));
    expect(listed).toBe(`${Array.from({ length: BRIEF_LIST_ENTRIES }, (_, i) => `${i}`).join(' ')} …(${100_000 - BRIEF_LIST_ENTRIES} more)`);
  });

  it('stays short whatever the entries', () => {
    const listed = briefList(Array.from({ length: 1_000 }, () => 'v'.repeat(1_000_000)));
    expect(listed.length).toBeLessThan(BRIEF_LIST_ENTRIES * (BRIEF_TEXT_CHARS + 40) + 40);
  });
});
