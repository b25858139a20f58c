/**
 * run.oomScore: write this process's oom_score_adj (Go: oomAdjuster.ApplyOOMScoreAdj(0, score),
 * default -999 from `oomScoreAdj`). Lowering the score needs CAP_SYS_RESOURCE; without it the
 * kernel answers EACCES (or EPERM), which the Go kubelet logs ("Failed to ApplyOOMScoreAdj") and
 * ignores: we return 'permission-denied' for the caller to log and go on.
 *
 * Differences from Go: Go retries a failed write once after 100 ms and ignores every error; we do
 * not retry (privilege does not come back) and throw KLT_ERR_HOST_IO for anything other than a
 * refusal (e.g. no /proc), so the actor can decide to log it and continue as Go does.
 */
import { writeFile } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import type { OomScoreOutcome } from '../../domain/node/host-types.js';
import type { OomScoreWriter } from '../../ports/host.js';

const MIN_SCORE = -1000;
const MAX_SCORE = 1000;

export class ProcOomScoreWriter implements OomScoreWriter {
  constructor(private readonly path = '/proc/self/oom_score_adj') {}

  async setOwn(score: number): Promise<OomScoreOutcome> {
    if (!Number.isInteger(score) || score < MIN_SCORE || score > MAX_SCORE) {
      throw new KubeletError('KLT_ERR_CONFIG_INVALID', `invalid configuration: oomScoreAdj (--oom-score-adj) ${score} must be between -1000 and 1000, inclusive`);
    }
    try {
      // One write(2) of the decimal text; the 'r+' flag keeps Node from O_CREAT/O_TRUNC on a proc file.
      await writeFile(this.path, String(score), { flag: 'r+' });
      return 'set';
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return 'permission-denied';
      throw new KubeletError('KLT_ERR_HOST_IO', `failed to set ${JSON.stringify(this.path)} to "${score}": ${(err as Error).message}`, { cause: err });
    }
  }
}
