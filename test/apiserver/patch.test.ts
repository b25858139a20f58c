import { describe, expect, it } from 'vitest';
import { applyPatch, jsonPatch, mergePatch } from './patch.js';
import { strategicMerge } from './strategic-merge.js';
import { ApiError } from './status.js';

describe('mergePatch', () => {
  it.each([
    [{ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 } }, { a: 1, b: { d: 3, e: 4 } }],
    [{ list: [1, 2, 3] }, { list: [4] }, { list: [4] }],
    [{ a: 1 }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])('merges %j with %j into %j', (target, patch, want) => {
    expect(mergePatch(target, patch)).toEqual(want);
  });

  it('leaves its input untouched', () => {
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('jsonPatch', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const out = jsonPatch({ a: [1, 2], b: { c: 'x' }, 'd/e': 1 }, [
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'add', path: '/a/0', value: 0 },
      { op: 'remove', path: '/d~1e' },
      { op: 'replace', path: '/b/c', value: 'y' },
      { op: 'copy', from: '/b', path: '/f' },
      { op: 'move', from: '/b/c', path: '/g' },
      { op: 'test', path: '/g', value: 'y' },
    ]);
    expect(out).toEqual({ a: [0, 1, 2, 3], b: {}, f: { c: 'y' }, g: 'y' });
  });

  it('fails a test op with 422 and a missing path with 422', () => {
    const err = (fn: () => unknown) => { try { fn(); } catch (e) { return e; } return undefined; };
    expect((err(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }])) as ApiError).code).toBe(422);
    expect((err(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/x/y', value: 2 }])) as ApiError).code).toBe(422);
  });
});

describe('strategicMerge', () => {
  const node = { status: {
    conditions: [{ type: 'Ready', status: 'False' }, { type: 'MemoryPressure', status: 'False' }],
    images: [{ names: ['a'] }, { names: ['b'] }],
  }, metadata: { finalizers: ['x'] } };

  it('merges conditions by type and replaces lists without a merge key', () => {
    const out = strategicMerge(node, { status: {
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'PIDPressure', status: 'False' }],
      images: [{ names: ['c'] }],
    } });
    expect(out).toEqual({ status: {
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'False' }, { type: 'PIDPressure', status: 'False' }],
      images: [{ names: ['c'] }],
    }, metadata: { finalizers: ['x'] } });
  });

  it('honours $patch delete, $setElementOrder, $deleteFromPrimitiveList and primitive set merge', () => {
    const out = strategicMerge(node, {
      metadata: { finalizers: ['y'], '$deleteFromPrimitiveList/finalizers': ['x'] },
      status: {
        '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
        conditions: [{ type: 'Ready', $patch: 'delete' }],
      },
    }) as { metadata: unknown; status: { conditions: unknown } };
    expect(out.metadata).toEqual({ finalizers: ['y'] });
    expect(out.status.conditions).toEqual([{ type: 'MemoryPressure', status: 'False' }]);
  });

  it('replaces a map under $patch: replace and keeps only $retainKeys', () => {
    expect(strategicMerge({ spec: { a: 1, b: 2 } }, { spec: { $patch: 'replace', c: 3 } })).toEqual({ spec: { c: 3 } });
    expect(strategicMerge({ spec: { a: 1, b: 2 } }, { spec: { $retainKeys: ['b', 'c'], c: 3 } })).toEqual({ spec: { b: 2, c: 3 } });
  });
});

describe('applyPatch', () => {
  it('answers an unknown patch type with 415', () => {
    try {
      applyPatch('application/apply-patch+yaml', {}, {});
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    }
  });
});
