import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcOomScoreWriter } from '../../../src/adapters/host/oom-score.js';

const PROC = '/proc/self/oom_score_adj';
const current = () => Number(readFileSync(PROC, 'utf8').trim());

describe('ProcOomScoreWriter', () => {
  let original: number;
  beforeAll(() => {
    original = current();
  });
  afterAll(async () => {
    // Raising back is always allowed.
    await new ProcOomScoreWriter().setOwn(original).catch(() => undefined);
  });

  it('sets the current value again (always allowed)', async () => {
    expect(await new ProcOomScoreWriter().setOwn(original)).toBe('set');
    expect(current()).toBe(original);
  });

  it('writes -999 for real, or reports permission-denied and leaves the score unchanged', async () => {
    const before = current();
    const outcome = await new ProcOomScoreWriter().setOwn(-999);
    expect(['set', 'permission-denied']).toContain(outcome);
    expect(current()).toBe(outcome === 'set' ? -999 : before);
  });

  it('raises the score without privilege', async () => {
    expect(await new ProcOomScoreWriter().setOwn(Math.min(original + 1, 1000))).toBe('set');
    expect(current()).toBe(Math.min(original + 1, 1000));
  });

  it('rejects scores outside -1000..1000 without writing', async () => {
    await expect(new ProcOomScoreWriter().setOwn(-1001)).rejects.toMatchObject({ code: 'KLT_ERR_CONFIG_INVALID' });
    await expect(new ProcOomScoreWriter().setOwn(1000.5)).rejects.toMatchObject({ code: 'KLT_ERR_CONFIG_INVALID' });
  });

  describe('on a file it cannot write', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'klt-oom-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('throws KLT_ERR_HOST_IO for errors other than a refusal (no such file)', async () => {
      await expect(new ProcOomScoreWriter(join(dir, 'missing')).setOwn(0)).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
    });

    it('writes the decimal text', async () => {
      const path = join(dir, 'oom');
      await writeFile(path, '0');
      expect(await new ProcOomScoreWriter(path).setOwn(-5)).toBe('set');
      expect(await readFile(path, 'utf8')).toBe('-5');
    });
  });
});
