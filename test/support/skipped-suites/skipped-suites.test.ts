import { describe, expect, it } from 'vitest';
import { summarize } from './skipped-suites.reporter.js';

describe('the count of suites skipped for want of upstream binaries', () => {
  it('says 0 when every suite ran', () => {
    expect(summarize([])).toBe('skipped for want of upstream binaries: 0 suites');
  });

  it('counts suites and files, and lists each reason once with its files', () => {
    const text = summarize([
      { file: 'test/a.e2e.test.ts', reason: 'no kube-apiserver in KUBE_LAB_BIN=/x' },
      { file: 'test/a.e2e.test.ts', reason: 'no kube-apiserver in KUBE_LAB_BIN=/x' },
      { file: 'test/b.e2e.test.ts', reason: 'no kube-apiserver in KUBE_LAB_BIN=/x' },
      { file: 'test/c.e2e.test.ts', reason: 'no csi-mock-driver in KUBE_LAB_BIN=/x' },
    ]);
    expect(text.split('\n')).toEqual([
      'skipped for want of upstream binaries: 4 suites in 3 files',
      '  no kube-apiserver in KUBE_LAB_BIN=/x: test/a.e2e.test.ts, test/b.e2e.test.ts',
      '  no csi-mock-driver in KUBE_LAB_BIN=/x: test/c.e2e.test.ts',
    ]);
  });
});
