/**
 * The container log manager end to end, on containerd (KUBELET_IT_CRI) through the real control
 * plane (kube-lab.ts) and a real kubectl: a container writes numbered 1 KiB lines at 10 MiB/s
 * until the test has seen 20 rotations and lets it stop (a file made by `kubectl exec`: on a busy
 * machine rotations come further apart), with `containerLogMaxSize: 1Mi`, `containerLogMaxFiles: 3`
 * and the shortest interval Go allows (3 s). While it writes:
 * - the container's log directory never holds more than 3 files, and every rotated file but the
 *   newest is gzip-compressed;
 * - `kubectl logs -f`, started while it writes, gets every line from its first on, in order, none
 *   twice, across at least 20 rotations, to the container's last line;
 * - `kubectl logs --tail` afterwards reads the live file's last lines;
 * - the legacy link `<pod>_<ns>_<container>-<id>.log` (here in the tests' directory,
 *   KUBELET_TS_LEGACY_LOG_DIR) points at the live log, and goes when the pod (so the container) does.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { runKubectl } from '../support/kubectl-run.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { allOf, containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';

/** The writer's own end, should the test never let it stop. */
const MAX_WRITE_SECONDS = 300;
/** The file that lets the writer stop, once the test has seen its rotations. */
const STOP_FILE = '/tmp/stop';
const ROTATIONS = 20;
const LINE_BYTES = 1024;
const LINES_PER_SECOND = 10 * 1024;
/** Each second 10 MiB of numbered 1 KiB lines, until STOP_FILE exists, then the last number. */
const WRITER = `end=$(( $(date +%s) + ${MAX_WRITE_SECONDS} )); i=1; `
  + `while [ ! -e ${STOP_FILE} ] && [ $(date +%s) -lt $end ]; do t=$(date +%s); `
  + `awk -v s=$i 'BEGIN { pad = sprintf("%${LINE_BYTES - 12}s", ""); gsub(/ /, "x", pad); for (n = s; n < s + ${LINES_PER_SECOND}; n++) printf "%010d %s\\n", n, pad }'; `
  // The sleep paces the writer to the wall clock's next second (its rate is per second), not a wait of the test's.
  + `i=$((i+${LINES_PER_SECOND})); while [ $(date +%s) -eq $t ]; do sleep 0.05; done; done; echo "$((i-1)) last"`;

const linkDir = () => process.env.KUBELET_TS_LEGACY_LOG_DIR ?? '';

describeNeeding(allOf(kubeLabPart(), containerdPart()), 'container log rotation on containerd, kubectl logs -f across it', () => {
  let n: LabNode;

  beforeAll(async () => {
    n = await startLabNode({
      name: 'kts-logrot', endpoint: containerdEndpoint(), resolvable: true,
      extraConfig: () => ['containerLogMaxSize: 1Mi', 'containerLogMaxFiles: 3', 'containerLogMonitorInterval: 3s'],
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('keeps at most 3 files, gzips the older rotated ones, loses no followed line across 20 rotations, and links the live log', async () => {
    await n.createPod('writer', { restartPolicy: 'Never', containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', WRITER] }] });
    const running = await n.whileUp('the writer running', async () => {
      const p = await n.pod('writer');
      const s = p?.status?.containerStatuses?.[0] as { state?: { running?: object }; containerID?: string } | undefined;
      return s?.state?.running && s.containerID ? { uid: p!.metadata.uid, id: s.containerID.replace(/^containerd:\/\//, '') } : undefined;
    }, 60_000);
    const logDir = join(n.dir, 'logs', `${n.ns}_writer_${running.uid}`, 'main');
    const live = join(logDir, '0.log');

    // The link, made when the container started, points at the live log.
    const link = join(linkDir(), `writer_${n.ns}_main-${running.id}.log`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(live);

    await n.untilProxied('writer');
    const startedAt = Date.now();
    const follow = spawn(n.lab.kubectl, [`--kubeconfig=${n.lab.adminKubeconfig}`, '-n', n.ns, 'logs', '-f', 'writer'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Checked as it streams (hundreds of MiB go by): each line the one after the last.
    let rest = '';
    let first = 0;
    let last = 0;
    let lines = 0;
    let bad = '';
    let err = '';
    follow.stdout.setEncoding('utf8');
    follow.stdout.on('data', (d: string) => {
      const parts = (rest + d).split('\n');
      rest = parts.pop()!;
      for (const l of parts) {
        const m = /^(\d{10}) x+$/.exec(l);
        if (!m) {
          if (l.endsWith(' last')) continue;
          bad ||= `not a written line: ${l.slice(0, 80)}`;
          continue;
        }
        const k = Number(m[1]);
        if (first === 0) first = k;
        else if (k !== last + 1) bad ||= `line ${k} came after ${last}`;
        if (l.length !== LINE_BYTES - 1) bad ||= `line ${k} is ${l.length} bytes`;
        last = k;
        lines += 1;
      }
    });
    follow.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const ended = new Promise<number | null>((r) => follow.once('exit', r));

    // The log directory, looked at every 100 ms while the writer writes.
    const rotated = new Set<string>();
    let mostFiles = 0;
    let gzipped = '';
    let plainOld = '';
    let stopAsked: Promise<{ code: number | null; stdout: string; stderr: string }> | undefined;
    for (let stopped = false; !stopped;) {
      const files = readdirSync(logDir).filter((f) => f.startsWith('0.log')).sort();
      mostFiles = Math.max(mostFiles, files.length);
      const rotatedNow = files.filter((f) => f !== '0.log' && !f.endsWith('.tmp'));
      for (const f of rotatedNow) rotated.add(f.replace(/\.gz$/, ''));
      // Every rotated file but the newest is compressed. A compression under way shows its .tmp,
      // and for a moment both the plain file and its .gz: that plain file is on its way out.
      const plain = rotatedNow.slice(0, -1).filter((f) => !f.endsWith('.gz') && !files.includes(`${f}.gz`));
      plainOld ||= plain.length > 0 ? files.join(' ') : '';
      gzipped ||= rotatedNow.find((f) => f.endsWith('.gz')) ?? '';
      if (rotated.size >= ROTATIONS) stopAsked ??= runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', n.ns, 'exec', 'writer', '--', 'touch', STOP_FILE]);
      stopped = follow.exitCode !== null || (await n.pod('writer'))?.status?.phase === 'Succeeded';
      await new Promise((r) => setTimeout(r, 100)); // the directory's sampling period
    }
    const code = await ended;
    if (stopAsked) expect(await stopAsked).toMatchObject({ code: 0 });
    const seconds = (Date.now() - startedAt) / 1000;
    const summary = { code, err, bad, first, last, lines, rotations: rotated.size, mostFiles, plainOld, seconds };
    console.log('log rotation e2e', { ...summary, mibPerSecond: Math.round((lines * LINE_BYTES) / seconds / 1024 / 102.4) / 10 });

    expect(code).toBe(0);
    expect(err).toBe('');
    expect(bad).toBe('');
    expect(rotated.size).toBeGreaterThanOrEqual(ROTATIONS);
    expect(mostFiles).toBeLessThanOrEqual(3);
    expect(plainOld).toBe('');
    expect(gzipped).not.toBe('');
    // Every line from the first one followed to the last one written, each once.
    const plainFiles = readdirSync(logDir).filter((f) => !f.endsWith('.gz')).map((f) => readFileSync(join(logDir, f), 'utf8')).join('');
    const lastWritten = Number(/ (\d+) last\n/.exec(plainFiles)?.[1]);
    expect(last).toBe(lastWritten);
    expect(lines).toBe(last - first + 1);
    // --tail reads the live file alone, as Go's kubelet does: its last two lines, wherever the last
    // rotation fell (one just before the writer's last line leaves that line alone in it). The writer
    // has exited, so the live file no longer rotates. A rotation may also come after its last line:
    // containerd calls the container running (and reopens its log) until it has handled the exit,
    // which takes long on a busy machine; the last line is then the newest rotated file's, and the
    // live file is empty.
    const linesOf = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' '));
    const liveLines = linesOf(live);
    const newestRotated = readdirSync(logDir).filter((f) => f !== '0.log' && f.startsWith('0.log') && !f.endsWith('.gz') && !f.endsWith('.tmp')).sort().at(-1);
    const endedIn = liveLines.length > 0 ? liveLines : linesOf(join(logDir, newestRotated ?? '0.log'));
    expect(endedIn.at(-1)).toBe(`${lastWritten} last`);
    const tail = await runKubectl(n.lab.kubectl, n.lab.adminKubeconfig, ['-n', n.ns, 'logs', 'writer', '--tail=2']);
    expect(tail).toEqual({ code: 0, stdout: liveLines.slice(-2).map((l) => `${l}\n`).join(''), stderr: '' });
    // A compressed file is the lines it was, gzipped.
    const gz = readdirSync(logDir).find((f) => f.endsWith('.gz'))!;
    const inside = gunzipSync(readFileSync(join(logDir, gz))).toString().split('\n').filter(Boolean);
    expect(inside.length).toBeGreaterThan(1000);
    expect(inside.every((l) => / stdout F \d{10} x+$/.test(l))).toBe(true);

    // After all the rotations the link still leads to the live log.
    expect(statSync(link).ino).toBe(statSync(live).ino);

    // The pod goes, its container with it, and the link with the container.
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/writer`, { gracePeriodSeconds: 1 });
    await n.whileUp('the link gone with the container', () => !existsSync(link), 60_000);
  }, 480_000);
});
