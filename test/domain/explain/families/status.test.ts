import { describe, expect, it } from 'vitest';
import { statusFamily, statusText } from '../../../../src/domain/explain/families/status.js';
import { Records, UID } from '../records.js';

const patch = (r: Records, t: number, n: number, status: unknown) =>
  r.add(t, { actor: 'statusManager', type: 'action', name: 'spawn', payload: { child: `statusManager/patchPodStatus:${UID}:${n}`, src: 'patchPodStatus', input: { kind: 'patchPodStatus', podUid: UID, version: n, namespace: 'default', name: 'web', patch: { metadata: { uid: UID }, status } } } });
const answered = (r: Records, t: number, id: string, output: unknown) =>
  r.add(t, { actor: 'statusManager', kind: 'input', type: 'event', name: 'effect.answered', payload: { id, output } });

describe('statusFamily', () => {
  it('tells each status sent with the API server\'s answer, a refused patch, and the deletion', () => {
    const r = new Records();
    patch(r, 10, 1, { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }], containerStatuses: [{ name: 'main', ready: false, restartCount: 0, image: 'x', imageID: '', state: { waiting: { reason: 'ErrImagePull' } } }] });
    answered(r, 11, `patchPodStatus:${UID}:1`, { kind: 'patchPodStatus', ok: true });
    patch(r, 20, 2, { phase: 'Running' });
    answered(r, 21, `patchPodStatus:${UID}:2`, { kind: 'patchPodStatus', ok: false, error: { code: 'KLT_ERR_API_CONFLICT', message: 'the object has been modified' } });
    r.add(30, { actor: 'statusManager', type: 'action', name: 'spawn', payload: { child: `statusManager/deletePod:${UID}`, src: 'deletePod', input: { kind: 'deletePod', podUid: UID, namespace: 'default', name: 'web', uid: UID } } });
    answered(r, 31, `deletePod:${UID}`, { kind: 'deletePod', ok: true });
    expect(statusFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ['status sent: Pending; Ready=False (ContainersNotReady); main waiting (ErrImagePull)', [1, 2]],
      ['status sent: Running', [3, 4]],
      ['the status patch failed: the object has been modified', [4]],
      ['pod object deleted from the API server', [5, 6]],
    ]);
  });

  it('words init containers and terminated ones with their exit codes', () => {
    expect(statusText({
      phase: 'Failed', reason: 'OutOfcpu',
      initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 1, reason: 'Error' } } }],
    } as never)).toBe('Failed (OutOfcpu); init init terminated (Error, exit code 1)');
  });
});
