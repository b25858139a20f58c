/**
 * Records one start-up of this build for `kubelet-ts report --compare` (a CI step: the README,
 * Replay and report): the real binary, standalone on the embedded runtime with its server off, to
 * Ready and running, then SIGTERM; its journal copied to OUT.jsonl. A first start-up runs before it,
 * not kept: the first after a build pays for a cold file cache, a cost that is none of the build's
 * doing and would make the baseline look slower than it is.
 *
 *   node dist/scripts/record-startup.js OUT.jsonl      (from the repository's root, after npm run build)
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { recordStartup } from '../bench/record-startup.js';

const out = process.argv[2];
if (!out || process.argv.length > 3) {
  process.stderr.write('usage: record-startup OUT.jsonl\n');
  process.exit(2);
}

async function main(target: string) {
  const dir = mkdtempSync(join(tmpdir(), 'kts-record-startup-'));
  try {
    await recordStartup(join(dir, 'warm-up'));
    copyFileSync(await recordStartup(join(dir, 'recorded')), target);
    process.stdout.write(`${target}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main(resolve(out)).catch((err: unknown) => {
  process.stderr.write(`record-startup: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
