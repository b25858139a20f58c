import { describe, expect, it } from 'vitest';
import { imagesFamily } from '../../../../src/domain/explain/families/images.js';
import { Records } from '../records.js';

describe('imagesFamily', () => {
  it('tells each start that failed on its image with Go\'s reason and the registry\'s answer, and credentials used', () => {
    const r = new Records();
    r.syncDone(10, { ok: false, steps: [{ step: 'startContainer', target: 'main', ok: false, reason: 'ErrImagePull', error: { code: 'KLT_ERR_IMAGE_PULL', message: 'Failed to pull image "x.invalid/a:1": no such host' }, durationMs: 1 }] });
    r.syncDone(20, { ok: false, steps: [{ step: 'startContainer', target: 'main', ok: false, reason: 'ImagePullBackOff', error: { code: 'KLT_ERR_IMAGE_PULL_BACKOFF', message: 'Back-off pulling image "x.invalid/a:1"' }, durationMs: 1 }] });
    r.syncDone(30, { ok: false, steps: [{ step: 'startContainer', target: 'side', ok: false, reason: 'RunContainerError', error: { message: 'boom' }, durationMs: 1 }] });
    r.syncDone(40, { ok: true, steps: [{ step: 'startContainer', target: 'main', ok: true, pulledWith: 'secret default/regcred', durationMs: 1 }] });
    expect(imagesFamily(r.history()).map((l) => [l.text, l.cites])).toEqual([
      ['container main: ErrImagePull: Failed to pull image "x.invalid/a:1": no such host', [1]],
      ['container main: ImagePullBackOff: Back-off pulling image "x.invalid/a:1"', [2]],
      ['container main: image pulled with the credentials of secret default/regcred', [4]],
    ]);
  });
});
