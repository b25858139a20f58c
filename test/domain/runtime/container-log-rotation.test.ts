import { describe, expect, it } from 'vitest';
import { planLogRotation, rotatedLogsInUse, rotationTimestamp } from '../../../src/domain/runtime/container-log-rotation.js';

const LOG = '/logs/ns_pod_uid/app/0.log';
const at = (suffix: string) => `${LOG}.${suffix}`;
// 2026-11-26 03:04:05 UTC
const NOW = Date.UTC(2026, 10, 26, 3, 4, 5);

describe('rotationTimestamp', () => {
  it('formats the time as Go\'s 20060102-150405, in UTC, zero-padded', () => {
    expect(rotationTimestamp(NOW)).toBe('20261126-030405');
    expect(rotationTimestamp(Date.UTC(2027, 0, 2, 13, 0, 9))).toBe('20270102-130009');
  });
});

describe('planLogRotation', () => {
  it.each([
    {
      name: 'a first rotation: nothing beside the log',
      siblings: [], maxFiles: 3,
      remove: [], compress: [],
    },
    {
      name: 'the one rotated file is compressed, and kept (maxFiles 3: it, the next rotated one, the live log)',
      siblings: [at('20261126-030000')], maxFiles: 3,
      remove: [], compress: [at('20261126-030000')],
    },
    {
      name: 'beyond maxFiles - 2 rotated files the oldest go first; the kept plain one is compressed',
      siblings: [at('20261126-030100'), at('20261126-030000.gz'), at('20261126-025900.gz')], maxFiles: 3,
      remove: [at('20261126-025900.gz'), at('20261126-030000.gz')], compress: [at('20261126-030100')],
    },
    {
      name: 'maxFiles 5 keeps three rotated files, whatever order they were listed in',
      siblings: [at('20261126-030300'), at('20261126-030000.gz'), at('20261126-030200.gz'), at('20261126-030100.gz')], maxFiles: 5,
      remove: [at('20261126-030000.gz')], compress: [at('20261126-030300')],
    },
    {
      name: 'maxFiles 2 keeps no rotated file: the one being rotated and the live log are the two',
      siblings: [at('20261126-030000')], maxFiles: 2,
      remove: [at('20261126-030000')], compress: [],
    },
    {
      name: 'leftovers of an interrupted compression go first: the .tmp, and the plain file whose .gz exists',
      siblings: [at('20261126-030000'), at('20261126-030000.gz'), at('20261126-030000.tmp')], maxFiles: 3,
      remove: [at('20261126-030000'), at('20261126-030000.tmp')], compress: [],
    },
  ])('$name', ({ siblings, maxFiles, remove, compress }) => {
    const plan = planLogRotation(LOG, siblings, maxFiles, NOW);
    expect(plan).toEqual({ remove, compress, rotateTo: at('20261126-030405') });
  });

  it('leaves at most maxFiles files, the live one counted, after any number of rotations', () => {
    let files: string[] = [];
    for (let i = 0; i < 20; i++) {
      const plan = planLogRotation(LOG, files, 3, NOW + i * 10_000);
      files = files.filter((f) => !plan.remove.includes(f)).map((f) => (plan.compress.includes(f) ? `${f}.gz` : f));
      files.push(plan.rotateTo);
      expect(files.length + 1).toBeLessThanOrEqual(3);
      // Only the newest rotated file stays plain.
      expect(files.filter((f) => !f.endsWith('.gz'))).toEqual([plan.rotateTo]);
    }
  });
});

describe('rotatedLogsInUse', () => {
  it('sorts oldest first and leaves out temporary and already-compressed plain files', () => {
    expect(rotatedLogsInUse([at('b'), at('a.gz'), at('a'), at('c.tmp')])).toEqual([at('a.gz'), at('b')]);
  });
});
