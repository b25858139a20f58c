/**
 * A pod log directory as a pod with a hostPath onto it can leave it: `<root>/<ns>_<pod>_<uid>/<container>/`
 * beside a host file outside it (root-owned, 0600, known content) for the pod's links to point at.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';

const SECRET = 'root-only host file: do not copy\n';

export function plantedLogDirectory() {
  const root = mkdtempSync(join(tmpdir(), 'kts-podlogs-'));
  const containerDir = join(root, 'ns_web_0000-uid', 'app');
  mkdirSync(containerDir, { recursive: true });
  const outside = mkdtempSync(join(tmpdir(), 'kts-host-'));
  const secret = join(outside, 'shadow');
  writeFileSync(secret, SECRET);
  chmodSync(secret, 0o600);
  const before = statSync(secret);
  return {
    root,
    containerDir,
    log: join(containerDir, '0.log'),
    secret,
    /** The pod turns its container directory into a link (it can rename within its pod directory). */
    replaceContainerDirectoryWithLinkTo(target: string) {
      renameSync(containerDir, `${containerDir}.moved`);
      symlinkSync(target, containerDir);
    },
    expectSecretUntouched() {
      const now = statSync(secret);
      expect(readFileSync(secret, 'utf8')).toBe(SECRET);
      expect({ ino: now.ino, size: now.size, mode: now.mode, mtimeMs: now.mtimeMs }).toEqual({ ino: before.ino, size: before.size, mode: before.mode, mtimeMs: before.mtimeMs });
      expect(readdirSync(outside)).toEqual(['shadow']);
    },
    /** No regular file under the pod's directory holds the secret, plain or gzipped. */
    expectSecretNowhereInPodDirectory() {
      for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
        if (!e.isFile()) continue;
        const bytes = readFileSync(join(e.parentPath ?? e.path, e.name));
        const text = e.name.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
        expect(text).not.toContain(SECRET.trim());
      }
    },
  };
}
