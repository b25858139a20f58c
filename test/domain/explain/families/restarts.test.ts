import { describe, expect, it } from 'vitest';
import { restartsFamily } from '../../../../src/domain/explain/families/restarts.js';
import { Records } from '../records.js';

const C1 = '9ecab2360000000000000000000000000000000000000000000000000000aaaa';
const C2 = '2919e7240000000000000000000000000000000000000000000000000000bbbb';
const C3 = '868a6dcc0000000000000000000000000000000000000000000000000000cccc';
const started = (id: string) => ({ step: 'startContainer', target: 'main', ok: true, id, durationMs: 1 });
const backOff = (delay: string) => ({ step: 'startContainer', target: 'main', ok: false, reason: 'CrashLoopBackOff', error: { code: 'KLT_ERR_CONTAINER_BACKOFF', message: `back-off ${delay} restarting failed container=main pod=default/web` }, durationMs: 1 });
const running = (id: string, restartCount: number) => ({ id, name: 'main', state: 'running', exitCode: 0, reason: '', restartCount });
const exited = (id: string, restartCount: number) => ({ id, name: 'main', state: 'exited', exitCode: 3, reason: 'Error', restartCount });
const status = (...containers: object[]) => ({ podStatus: { runtimeStatus: { containers } } });

describe('restartsFamily', () => {
  it('tells a crash loop: each exit with its code once, each restart with its count, each back-off once citing every sync that met it', () => {
    const r = new Records();
    r.syncDone(100, { ok: true, steps: [started(C1)], ...status(running(C1, 0)) });
    r.syncDone(200, { ok: true, steps: [started(C2)], ...status(running(C2, 1), exited(C1, 0)) });
    r.syncDone(300, { ok: false, steps: [backOff('10s')], ...status(exited(C2, 1)) });
    r.syncDone(400, { ok: false, steps: [backOff('10s')], ...status(exited(C2, 1)) });
    r.syncDone(500, { ok: true, steps: [started(C3)], ...status(running(C3, 2), exited(C2, 1)) });
    r.syncDone(600, { ok: false, steps: [backOff('20s')], ...status(exited(C3, 2)) });
    const lines = restartsFamily(r.history());
    expect(lines.map((l) => [l.t, l.family, l.text, l.cites])).toEqual([
      [200, 'restarts', 'container main (9ecab2360000) exited with code 3 (Error)', [2]],
      [200, 'restarts', 'container main restarted (restart 1)', [2]],
      [300, 'restarts', 'container main (2919e7240000) exited with code 3 (Error)', [3]],
      [300, 'restarts', 'CrashLoopBackOff: back-off 10s restarting failed container=main pod=default/web', [3, 4]],
      [500, 'restarts', 'container main restarted (restart 2)', [5]],
      [600, 'restarts', 'container main (868a6dcc0000) exited with code 3 (Error)', [6]],
      [600, 'restarts', 'CrashLoopBackOff: back-off 20s restarting failed container=main pod=default/web', [6]],
    ]);
    expect(lines.map((l) => l.repeated)).toEqual([undefined, undefined, undefined, { times: 2, lastT: 400 }, undefined, undefined, undefined]);
  });

  it('says nothing of a first start, and tells a restart without a count when the runtime status is not journaled', () => {
    const r = new Records();
    r.syncDone(100, { ok: true, steps: [started(C1)] });
    r.syncDone(200, { ok: true, steps: [started(C2)] });
    expect(restartsFamily(r.history()).map((l) => l.text)).toEqual(['container main restarted']);
  });
});
