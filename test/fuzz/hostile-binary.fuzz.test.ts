/**
 * The fuzz suite's binary half (issue 14): what hostile-input.fuzz.test.ts runs in-process, run
 * here through the real binary (`npm run build` first), for what only a process shows.
 *
 * - Generated command lines and config files start the binary: each must end, within 10 s, in exit 1
 *   with one line naming a flag, field or file and no stack trace, or reach `running` and then exit 0
 *   on SIGTERM. Never a hang, a stack trace, another exit code, or exit 0 on its own.
 * - Generated manifests are dropped into a running kubelet's staticPodPath next to a running pod:
 *   the kubelet keeps answering, the running pod keeps its container, and every manifest becomes a
 *   pod or is reported in rejectedManifests by its file.
 *
 * The seed is hostile-input's (FUZZ_SEED repeats a run); fewer cases than in-process, as each costs
 * a process start.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifestText } from '../../src/adapters/pod-sources/parse-manifest.js';
import { decodeStaticPod } from '../../src/domain/pod-config/static-pod.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { binaryFlagArgs, configText, FUZZ_SEED, manifestText } from './hostile-arbitraries.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const CONFIG_CASES = 24;
// The syncLoop keeps the latest 100 rejections (rejectedManifests, bounded); every one is also logged.
const MANIFEST_CASES = 90;
/**
 * How long a start may go without exiting or running before it counts as a hang: generous for a
 * loaded 2-core machine, where a refused start was still parsing its command line at 10 s.
 */
const HANG_MS = 60_000;
/** The bound of the 24 starts, two at a time, each within HANG_MS. */
const CONFIG_CASES_TIMEOUT_MS = 600_000;
const NODE = 'fuzz-node';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-fuzz-bin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface StartOutcome { code: number | null; signal: NodeJS.Signals | null; stderr: string; reachedRunning: boolean; hung: boolean; stoppedBy: 'us' | 'itself' }

/** Starts the binary; stops it with SIGTERM once it runs; SIGKILLs it past HANG_MS without either. */
function start(args: string[]): Promise<StartOutcome> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let reachedRunning = false;
    let hung = false;
    // A watchdog, not a wait: a daemon that neither exits nor runs by HANG_MS is the hang the fuzz looks for.
    const killWhenHung = () => setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    let hang = killWhenHung();
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!reachedRunning && stderr.includes('"phase":"running"')) {
        reachedRunning = true;
        // Stopping must be as prompt as starting.
        clearTimeout(hang);
        hang = killWhenHung();
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(hang);
      done({ code, signal, stderr, reachedRunning, hung, stoppedBy: reachedRunning ? 'us' : 'itself' });
    });
  });
}

/** A flag, a config field's path, a file, an argument, or the stray word of a command line. */
const NAMES_WHAT_IS_WRONG = /--[a-z]|[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+|\[[^\]]*\])*: |file|flag|argument|unknown command "/;

/** The daemon's JSON line for a failed start-up, if it wrote one. */
function startUpFailure(stderr: string): { phase: string; code: string; reason: string } | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const record = JSON.parse(line) as { msg?: string; phase?: string; code?: string; reason?: string };
    if (record.msg === 'Start-up failed') return { phase: String(record.phase), code: String(record.code), reason: String(record.reason) };
  }
  return undefined;
}

/** The runs go two at a time (two cores). */
async function inPairs<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!, i);
    }
  };
  await Promise.all([lane(), lane()]);
  return out;
}

describe(`binary fuzz, seed ${FUZZ_SEED}`, () => {
  it(`starts the binary on ${CONFIG_CASES} generated command lines and config files: exit 1 naming what is wrong, or running until stopped`, async () => {
    const cases = fc.sample(fc.tuple(binaryFlagArgs, fc.option(configText, { nil: undefined })), { seed: FUZZ_SEED, numRuns: CONFIG_CASES });
    const outcomes = await inPairs(cases, async ([flags, text], i) => {
      const caseDir = join(dir, `config-${i}`);
      const config = join(caseDir, 'kubelet.yaml');
      const safe = [
        `--root-dir=${join(caseDir, 'root')}`, `--device-plugins-dir=${join(caseDir, 'root')}/device-plugins`, `--cert-dir=${join(caseDir, 'pki')}`, `--lock-file=${join(caseDir, 'kubelet.lock')}`,
        '--container-runtime-endpoint=embedded', '--debug-address=', '--enable-server=false', '--read-only-port=0', '--healthz-port=0',
        '--manifest-url=', `--pod-manifest-path=${join(caseDir, 'manifests')}`, '--kubeconfig=', '--bootstrap-kubeconfig=',
      ];
      mkdirSync(caseDir, { recursive: true });
      if (text !== undefined) writeFileSync(config, text);
      // The generated flags first: a later flag wins, so the safe ones keep every run off the network and in its own directory.
      // A command line cannot carry a NUL byte (execve ends each argument at one): drop it.
      const args = [...flags.map((a) => a.replaceAll('\0', '')), ...(text === undefined ? [] : [`--config=${config}`]), ...safe];
      return { args, text, outcome: await start(args) };
    });
    let running = 0;
    for (const { args, text, outcome } of outcomes) {
      const context = `${JSON.stringify(args)}\nconfig: ${JSON.stringify(text)}\nstderr: ${outcome.stderr.slice(-2000)}`;
      expect(outcome.hung, `a hang (${HANG_MS} ms)\n${context}`).toBe(false);
      expect(outcome.stderr, `a stack trace\n${context}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
      if (outcome.reachedRunning) {
        running++;
        expect(outcome.code, `stopped with SIGTERM\n${context}`).toBe(0);
        continue;
      }
      expect([outcome.code, outcome.signal], `exit 1 before running\n${context}`).toEqual([1, null]);
      const failure = startUpFailure(outcome.stderr);
      expect(failure, `one 'Start-up failed' line naming the phase and the error\n${context}`)
        .toMatchObject({ phase: expect.stringMatching(/^[\w.]+$/), code: expect.stringMatching(/^KLT_ERR_[A-Z_]+$/) });
      expect(failure!.reason, context).toMatch(NAMES_WHAT_IS_WRONG);
    }
    process.stdout.write(`binary fuzz seed ${FUZZ_SEED}: ${CONFIG_CASES} starts, ${running} ran and stopped, ${CONFIG_CASES - running} refused\n`);
  }, CONFIG_CASES_TIMEOUT_MS);

  describe('manifests dropped into a running kubelet', () => {
    let k: StaticPodKubelet;
    const debugPods = async () => {
      const t0 = performance.now();
      const res = await fetch(`http://${k.debug}/debug/pods`, { signal: AbortSignal.timeout(HANG_MS) });
      const view = (await res.json()) as {
        pods: { name: string; uid: string; lifecycle: string; status: { phase?: string; containerStatuses?: { containerID?: string; restartCount?: number; state?: { running?: object } }[] } | null }[];
        rejectedManifests: { origin: string; reason: string }[];
      };
      return { ...view, ms: performance.now() - t0 };
    };
    const keeper = async () => (await debugPods()).pods.find((p) => p.name === `keeper-${NODE}` && p.lifecycle === 'active');

    beforeAll(async () => {
      k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-fuzz-pods-' });
      writeFileSync(join(k.manifests, 'keeper.json'), JSON.stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'keeper' },
        spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] }] },
      }));
      await until('keeper running', async () => (await keeper())?.status?.containerStatuses?.[0]?.state?.running, 60_000, () => k.stderr());
    }, 90_000);

    afterAll(async () => {
      await k?.dispose((name) => name.endsWith(`-${NODE}`));
    }, 60_000);

    it(`takes ${MANIFEST_CASES} generated manifests: keeps answering and keeps the running pod; each becomes a pod or a rejection by file`, async () => {
      const before = (await keeper())!.status!.containerStatuses![0]!;
      const texts = fc.sample(manifestText, { seed: FUZZ_SEED, numRuns: MANIFEST_CASES });
      let slowestMs = 0;
      const files = texts.map((text, i) => ({ file: join(k.manifests, `fuzz-${i}.${i % 2 ? 'json' : 'yaml'}`), text }));
      for (let i = 0; i < files.length; i += 10) {
        for (const { file, text } of files.slice(i, i + 10)) writeFileSync(file, text);
        slowestMs = Math.max(slowestMs, (await debugPods()).ms);
      }
      // What the kubelet's own parser and decoder make of each file: a pod's name, or a rejection.
      const origin = { source: 'file' as const, origin: '', nodeName: NODE };
      const expected = files.map(({ file, text }) => {
        const parsed = parseManifestText(text);
        const decoded = parsed.ok ? decodeStaticPod(parsed.doc, { ...origin, origin: file }) : null;
        return { file, pod: decoded?.ok ? decoded.value.metadata.name : undefined };
      });
      let unseen: typeof expected = [];
      const settled = await until('every manifest seen: a pod or a rejection', async () => {
        const view = await debugPods();
        slowestMs = Math.max(slowestMs, view.ms);
        const names = new Set(view.pods.map((p) => p.name));
        const rejected = new Set(view.rejectedManifests.map((r) => r.origin));
        // A valid pod's name may be taken by an earlier file: that file's pod runs, this one is a rejected duplicate.
        unseen = expected.filter((e) => !(e.pod ? names.has(e.pod) : rejected.has(e.file)));
        return unseen.length === 0 ? view : undefined;
      }, 60_000, () => JSON.stringify(unseen.map((e) => ({ ...e, text: files.find((f) => f.file === e.file)?.text })), null, 1));
      const after = settled.pods.find((p) => p.name === `keeper-${NODE}` && p.lifecycle === 'active')?.status?.containerStatuses?.[0];
      expect(after?.state?.running).toBeTruthy();
      expect([after?.containerID, after?.restartCount]).toEqual([before.containerID, before.restartCount]);
      expect(k.child.exitCode).toBeNull();
      const pods = expected.filter((e) => e.pod).length;
      process.stdout.write(`binary fuzz seed ${FUZZ_SEED}: ${MANIFEST_CASES} manifests, ${pods} pods, ${MANIFEST_CASES - pods} rejected; slowest /debug/pods ${slowestMs.toFixed(0)} ms\n`);
      expect(slowestMs).toBeLessThan(HANG_MS);
    }, 180_000);
  });
});
