import { describe, expect, it } from 'vitest';
import { dropDuplicatePods, originsOf } from '../../../src/domain/pod-config/duplicates.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (name: string, namespace: string, uid: string): Pod => ({ metadata: { name, namespace, uid }, spec: { containers: [] } });

describe('dropDuplicatePods', () => {
  it('keeps the first pod of a name and rejects later ones, naming both origins', () => {
    const { kept, rejected } = dropDuplicatePods([
      { origin: '/m/a.yaml', pod: pod('web-n', 'default', '1') },
      { origin: '/m/b.yaml', pod: pod('web-n', 'default', '2') },
      { origin: '/m/c.yaml', pod: pod('web-n', 'other', '3') },
    ]);
    expect(kept.map((e) => e.origin)).toEqual(['/m/a.yaml', '/m/c.yaml']);
    expect(rejected).toEqual([{ origin: '/m/b.yaml', reason: expect.stringContaining('already given by /m/a.yaml') }]);
    expect(rejected[0]?.reason).toContain('"default/web-n"');
  });

  it('keeps the origin that gave the pod at the previous read, even when a newcomer comes first (#14)', () => {
    const entries = [
      { origin: '/m/a.yaml', pod: pod('web-n', 'default', '1') },
      { origin: '/m/z.yaml', pod: pod('web-n', 'default', '2') },
    ];
    const first = dropDuplicatePods(entries.slice(1));
    const { kept, rejected } = dropDuplicatePods(entries, originsOf(first.kept));
    expect(kept.map((e) => e.origin)).toEqual(['/m/z.yaml']);
    expect(rejected).toEqual([{ origin: '/m/a.yaml', reason: expect.stringContaining('already given by /m/z.yaml') }]);
  });
});
