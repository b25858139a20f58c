import { describe, expect, it } from 'vitest';
import { dropDuplicatePods } from '../../../src/domain/pod-config/duplicates.js';
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
});
