import { describe, expect, it } from 'vitest';
import { expand, mappingFor } from '../../../src/domain/runtime/expansion.js';

const mapping = mappingFor(new Map([
  ['VAR_A', 'A'],
  ['VAR_B', 'B'],
  ['VAR_C', 'C'],
  ['VAR_REF', '$(VAR_A)'],
  ['VAR_EMPTY', ''],
]), new Map([['SERVICE_HOST', '10.0.0.1'], ['VAR_A', 'from-service']]));

describe('expand', () => {
  it.each([
    ['whole string', '$(VAR_A)', 'A'],
    ['repeated', '$(VAR_A)-$(VAR_A)', 'A-A'],
    ['several', '$(VAR_A)-$(VAR_B)-$(VAR_C)', 'A-B-C'],
    ['inside text', 'foo$(VAR_C)bar', 'fooCbar'],
    ['an empty value', 'x$(VAR_EMPTY)y', 'xy'],
    ['a value is not expanded again', '$(VAR_REF)', '$(VAR_A)'],
    ['from the second context', '$(SERVICE_HOST):80', '10.0.0.1:80'],
    ['first context wins', '$(VAR_A)', 'A'],
    ['unknown stays literal', '$(UNKNOWN)', '$(UNKNOWN)'],
    ['escaped reference', '$$(VAR_A)', '$(VAR_A)'],
    ['escaped operator alone', 'a$$b', 'a$b'],
    ['double escape then reference', '$$$(VAR_A)', '$A'],
    ['four dollars', '$$$$(VAR_A)', '$$(VAR_A)'],
    ['unclosed reference', '$(VAR_A', '$(VAR_A'],
    ['unclosed then closed', '$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
    ['operator before another character', '$VAR_A', '$VAR_A'],
    ['trailing operator', 'abc$', 'abc$'],
    ['only an operator', '$', '$'],
    ['empty name', '$()', '$()'],
    ['no references', 'plain text', 'plain text'],
    ['empty input', '', ''],
    ['nested parentheses end at the first closer', '$(VAR_A)))', 'A))'],
  ])('%s: %j → %j', (_, input, expected) => {
    expect(expand(input, mapping)).toBe(expected);
  });
});
