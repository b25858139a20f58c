import { describe, expect, it } from 'vitest';
import { explainPod, explainPodInPasses, foldRepeats, isPodNotFound, sortLines, type RecordPass } from '../../../src/domain/explain/explain.js';
import { renderNotFound, renderStory } from '../../../src/domain/explain/render-story.js';
import type { FamilyExplainer, Story } from '../../../src/domain/explain/story.js';
import { pod, Records, UID } from './records.js';

const OTHER = '99999999-2222-3333-4444-555555555555';
const SAME_NAME_ELSEWHERE = '88888888-2222-3333-4444-555555555555';

function log() {
  const r = new Records();
  r.add(0, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod(), pod('db', 'default', OTHER), pod('db', 'prod', SAME_NAME_ELSEWHERE)] } });
  r.admitted(10);
  r.syncDone(50, { ok: true, steps: [{ step: 'startContainer', target: 'main', ok: true, id: 'abcdef0123456789abcdef', durationMs: 3 }] });
  r.syncDone(60, { ok: true, steps: [{ step: 'startContainer', target: 'main', ok: true, id: 'ffff', durationMs: 3 }] }, OTHER);
  return r;
}

/** A family citing every record it was given, to see which records the history holds. */
const everyRecord: FamilyExplainer = (h) => h.records.map((r) => ({ t: r.t, family: 'status', text: `${r.actor} ${r.name}`, cites: [r.seq] }));

describe('explainPod', () => {
  it('finds a pod by namespace/name, by a name one namespace alone has, and by uid', () => {
    for (const q of ['default/web', 'web', UID]) expect(explainPod(log().all, q)).toMatchObject({ pod: { uid: UID, namespace: 'default', name: 'web' } });
  });

  it('gives a pod its own records and the records naming it, not another pod\'s', () => {
    const story = explainPod(log().all, 'web', [everyRecord]) as Story;
    expect(story.lines.map((l) => l.cites[0])).toEqual([1, 2, 3]);
  });

  it('answers a name it does not know with the closest names it does', () => {
    const answer = explainPod(log().all, 'wbe');
    expect(answer).toEqual({ notFound: 'wbe', closest: ['default/web', 'default/db', 'prod/db'] });
    expect(renderNotFound(answer as never)).toBe('no pod "wbe" in the log; closest: default/web, default/db, prod/db\n');
  });

  it('asks for the namespace when a bare name is in several', () => {
    const answer = explainPod(log().all, 'db');
    expect(answer).toEqual({ notFound: 'db', closest: ['default/db', 'prod/db'], ambiguous: true });
    expect(isPodNotFound(answer)).toBe(true);
  });

  it('takes the latest uid of a name made again, and leaves out mirror pods', () => {
    const r = log();
    const later = '77777777-2222-3333-4444-555555555555';
    r.add(70, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod('web', 'default', later)] } });
    const mirror = pod('web', 'default', 'mirror-uid');
    (mirror.metadata as Record<string, unknown>).annotations = { 'kubernetes.io/config.mirror': 'x' };
    r.add(80, { actor: 'statusManager', type: 'event', name: 'api.mirrorPods.observed', payload: { pods: [mirror] } });
    expect(explainPod(r.all, 'default/web')).toMatchObject({ pod: { uid: later } });
  });

  it('says where the log starts when its first records were rotated away', () => {
    const records = log().all.slice(1);
    expect(explainPod(records, UID)).toMatchObject({ historyFrom: 2 });
  });
});

describe('explainPodInPasses', () => {
  it('reads a log twice, the pod found in the first pass and its history kept in the second; once for a pod it does not know', () => {
    const records = log().all;
    let passes = 0;
    const pass: RecordPass = (visit) => {
      passes += 1;
      for (const r of records) visit(r);
    };
    expect(explainPodInPasses(pass, 'web', [everyRecord])).toEqual(explainPod(records, 'web', [everyRecord]));
    expect(passes).toBe(2);
    passes = 0;
    expect(explainPodInPasses(pass, 'wbe')).toMatchObject({ notFound: 'wbe' });
    expect(passes).toBe(1);
  });
});

describe('sortLines', () => {
  it('orders by time, then by the first record cited', () => {
    const lines = sortLines([
      { t: 5, family: 'status', text: 'c', cites: [9] },
      { t: 5, family: 'containers', text: 'b', cites: [7] },
      { t: 1, family: 'admission', text: 'a', cites: [8] },
    ]);
    expect(lines.map((l) => l.text)).toEqual(['a', 'b', 'c']);
  });
});

describe('foldRepeats', () => {
  it('folds a line repeated straight after itself, adding a count a family already gave', () => {
    const line = (t: number, cites: number[], repeated?: { times: number; lastT: number }) =>
      ({ t, family: 'restarts' as const, text: 'CrashLoopBackOff', cites, ...(repeated ? { repeated } : {}) });
    const folded = foldRepeats([line(1, [10]), line(2, [11, 12], { times: 2, lastT: 3 }), { ...line(4, [13]), family: 'status' as const }]);
    expect(folded).toHaveLength(2);
    expect(folded[0]).toMatchObject({ t: 1, cites: [10, 11, 12], repeated: { times: 3, lastT: 3 } });
  });
});

describe('renderStory', () => {
  it('prints each line with its time since the first, its text and the records it cites', () => {
    expect(renderStory({ pod: { uid: UID, namespace: 'default', name: 'web' }, historyFrom: 40, lines: [
      { t: 1000, family: 'admission', text: 'admitted', cites: [3] },
      { t: 2500, family: 'containers', text: 'container main started', cites: [4, 5] },
    ] })).toBe([
      `pod default/web (uid ${UID})`,
      '  (the log starts at record #40: earlier history was rotated away)',
      '  +0.000s  admitted  [#3]',
      '  +1.500s  container main started  [#4 #5]',
      '',
    ].join('\n'));
  });
});
