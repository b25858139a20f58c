import { describe, expect, it } from 'vitest';
import { ENV_FILE_MAX_LINE_BYTES, lookUpEnvFile } from '../../../src/domain/runtime/env-file.js';

describe('lookUpEnvFile', () => {
  it('finds a single-quoted value, taken literally, after blank lines, comments and leading blanks', () => {
    const text = "\n# settings\n   \n  A='one'\nB='$(A) \\n \"two\"'  # a comment\n";
    expect(lookUpEnvFile(text, 'A')).toEqual({ found: true, value: 'one' });
    expect(lookUpEnvFile(text, 'B')).toEqual({ found: true, value: '$(A) \\n "two"' });
    expect(lookUpEnvFile(text, 'C')).toEqual({ found: false });
  });

  it('reads a value over several lines, keeping its newlines, and CRLF line ends as LF', () => {
    expect(lookUpEnvFile("A='first\r\nsecond\nthird'\r\n", 'A')).toEqual({ found: true, value: 'first\nsecond\nthird' });
  });

  it('takes the first assignment of a key, and a blank after = as an empty value, as a shell does', () => {
    expect(lookUpEnvFile("A='1'\nA='2'\n", 'A')).toEqual({ found: true, value: '1' });
    expect(lookUpEnvFile("A= 'ignored'\n", 'A')).toEqual({ found: true, value: '' });
    expect(lookUpEnvFile("A= whatever\nB='b'\n", 'B')).toEqual({ found: true, value: 'b' });
  });

  it.each([
    ['A=unquoted\n', "invalid environment variable format at line 1: value must be enclosed in single quotes"],
    ["A ='x'\n", "invalid environment variable format at line 1: whitespace before '=' is not allowed"],
    ["='x'\n", 'invalid environment variable format at line 1: empty variable name'],
    ["X='x'\nno equals here\n", "invalid environment variable format at line 2: missing '='"],
    ["A='x' trailing\n", 'invalid environment variable format at line 1: unexpected content after closing quote'],
    ["X='x'\nA='never\nclosed\n", 'invalid environment variable format starting at line 2: unclosed single quote'],
  ])('refuses %j with Go\'s error', (text, error) => {
    expect(lookUpEnvFile(text, 'A')).toEqual({ error });
  });

  it('stops at the key: a malformed line after it is never read', () => {
    expect(lookUpEnvFile("A='a'\nthis is not an assignment\n", 'A')).toEqual({ found: true, value: 'a' });
  });

  it('refuses a line longer than Go\'s scanner takes, as Go does', () => {
    const long = `X='${'x'.repeat(ENV_FILE_MAX_LINE_BYTES)}'\nA='a'\n`;
    expect(lookUpEnvFile(long, 'A')).toEqual({ error: `line 1 is longer than ${ENV_FILE_MAX_LINE_BYTES - 1} bytes` });
  });
});
