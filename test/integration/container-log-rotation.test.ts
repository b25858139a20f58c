/**
 * The container log manager in the real binary on the embedded runtime, standalone: a static pod
 * writing about 100 KiB/s with `containerLogMaxSize: 10Ki`, `containerLogMaxFiles: 3` and a 3 s
 * interval has its log rotated by the manager and reopened by its shim (ReopenContainerLog), never
 * more than 3 files with the older rotated ones gzipped; its /var/log/containers link (in the test's
 * directory, KUBELET_TS_LEGACY_LOG_DIR) leads to the live log and goes with the container when the
 * manifest is removed. containerd: container-log-rotation.e2e.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';

const NODE = 'node-logrot';
/** 100 lines of 1 KiB every 0.1 s or so. */
// `sleep 0.1` paces the writer so the log grows steadily; the test waits on rotated files, not on time.
const WRITER = "trap 'exit 0' TERM; i=0; while :; do awk -v s=$i 'BEGIN { for (n = s; n < s + 10; n++) printf \"%010d %01000d\\n\", n, 0 }'; i=$((i+10)); sleep 0.1; done";

let k: StaticPodKubelet;
const links = mkdtempSync(join(tmpdir(), 'kts-logrot-links-'));
const until = <T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 60_000) => waitUntil(what, probe, ms, () => k.stderr());

describe('container log rotation, embedded runtime', () => {
  beforeAll(async () => {
    k = await startStaticPodKubelet({
      endpoint: 'embedded', nodeName: NODE, prefix: 'kts-logrot-',
      config: ['containerLogMaxSize: 10Ki', 'containerLogMaxFiles: 3', 'containerLogMonitorInterval: 3s'],
      env: { KUBELET_TS_LEGACY_LOG_DIR: links },
    });
  }, 60_000);

  afterAll(async () => {
    await k?.dispose();
    rmSync(links, { recursive: true, force: true });
  }, 60_000);

  it('rotates a running container\'s log through its shim, keeps 3 files, and links the live log until the container goes', async () => {
    writeFileSync(join(k.manifests, 'writer.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'writer' },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', WRITER] }] },
    }));
    const logDir = await until('the writer\'s log directory', () => {
      const pod = readdirSync(k.logs).find((d) => d.startsWith(`default_writer-${NODE}_`));
      return pod && existsSync(join(k.logs, pod, 'main', '0.log')) ? join(k.logs, pod, 'main') : undefined;
    });
    const live = join(logDir, '0.log');
    // Made once StartContainer has answered, which is after the log appeared.
    const [link, ...others] = await until('the link', () => (readdirSync(links).length > 0 ? readdirSync(links) : undefined), 10_000);
    expect(others).toEqual([]);
    expect(link).toMatch(new RegExp(`^writer-${NODE}_default_main-[0-9a-f]+\\.log$`));
    expect(readlinkSync(join(links, link!))).toBe(live);

    const rotated = new Set<string>();
    let mostFiles = 0;
    await until('3 rotations', async () => {
      const files = readdirSync(logDir).filter((f) => f.startsWith('0.log')).sort();
      mostFiles = Math.max(mostFiles, files.length);
      for (const f of files) if (f !== '0.log' && !f.endsWith('.tmp')) rotated.add(f.replace(/\.gz$/, ''));
      return rotated.size >= 3 && files.some((f) => f.endsWith('.gz'));
    });
    expect(mostFiles).toBeLessThanOrEqual(3);
    // The shim writes on in the reopened file, which the link leads to.
    const size = statSync(live).size;
    await until('the live log growing', () => statSync(live).size > size || undefined, 10_000);
    expect(statSync(join(links, link!)).ino).toBe(statSync(live).ino);

    // The static pod goes: its container is removed, and its logs and link with it.
    unlinkSync(join(k.manifests, 'writer.json'));
    await until('the link and the logs gone with the container', () => readdirSync(links).length === 0 && !existsSync(live));
  }, 90_000);
});
