/**
 * Machines are pure (docs/ARCHITECTURE.md, Layers): a replay can only reproduce what the log's
 * inputs and the machines determine. The lint rules say so for the editor; this test says so for
 * CI, file by file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = 'src/machines';
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

const FORBIDDEN: [string, RegExp][] = [
  ['reads the clock', /\bDate\.now\s*\(|\bnew Date\s*\(|\bperformance\.now\s*\(|\bprocess\.hrtime/],
  ['draws randomness', /\bMath\.random\s*\(|\bcrypto\.random|\brandomUUID\s*\(/],
  ['sets its own timers', /(^|[^.\w])set(Timeout|Interval|Immediate)\s*\(/m],
  ['touches the process', /\bprocess\.(env|argv|exit|on|stdout|stderr)\b/],
  ['does I/O', /from ['"](node:)?(fs|fs\/promises|net|http|https|child_process|dgram|os|worker_threads)['"]/],
  ['imports an effectful layer', /from ['"]\.\.\/(actors|adapters|bin)\//],
];

describe('src/machines', () => {
  it('has machines to check', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(7);
  });

  it.each(FILES)('%s reads no clock, draws no randomness and does no I/O', (file) => {
    const text = readFileSync(join(DIR, file), 'utf8')
      // Comments may talk about these things.
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:])\/\/.*$/gm, '$1');
    const problems = FORBIDDEN.filter(([, re]) => re.test(text)).map(([what]) => what);
    expect(problems).toEqual([]);
  });
});
