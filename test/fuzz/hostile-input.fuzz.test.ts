/**
 * The fuzz suite (issue 14): generated command lines and KubeletConfiguration files, and generated
 * static pod manifests, through the same code the daemon runs (the config loader over an in-memory
 * file system; the manifest parser and decoder). Every case must end in a refusal that names a
 * flag, field or file, or in a valid result — never a stray exception, and never a known-bad value
 * let through. The seed changes every run and is printed; FUZZ_SEED=<n> repeats a run. The
 * generators are in hostile-arbitraries.ts; hostile-binary.fuzz.test.ts runs them through the binary.
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadKubeletConfiguration, type ConfigFileSystem } from '../../src/adapters/config-file/load-kubelet-configuration.js';
import { parseManifestText } from '../../src/adapters/pod-sources/parse-manifest.js';
import type { FieldError } from '../../src/domain/config/types.js';
import { validateKubeletFlags } from '../../src/domain/config/validate.js';
import { KubeletError } from '../../src/domain/errors.js';
import { decodeStaticPod } from '../../src/domain/pod-config/static-pod.js';
import { configText, flagArgs, FUZZ_SEED as SEED, manifestText } from './hostile-arbitraries.js';

const CONFIG_RUNS = 2_000;
const MANIFEST_RUNS = 2_000;
const CONFIG_PATH = '/fuzz/kubelet.yaml';

const memoryFs = (files: Record<string, string>): ConfigFileSystem => ({
  readFile: async (path) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
    return text;
  },
  listFiles: async () => [],
});

/** What the daemon's command.* phases would say: every field error, or the error that stopped them. */
async function configure(argv: string[], files: Record<string, string>): Promise<{ errors: FieldError[] } | { refused: KubeletError }> {
  try {
    const loaded = await loadKubeletConfiguration(argv, memoryFs(files));
    return { errors: [...loaded.errors, ...validateKubeletFlags(loaded.parsed.flags)] };
  } catch (err) {
    if (err instanceof KubeletError) return { refused: err };
    throw err; // a stray exception: the property fails with it
  }
}

describe(`fuzz, seed ${SEED}`, () => {
  it(`configures ${CONFIG_RUNS} generated command lines and config files: valid, or refused naming a flag, field or file`, async () => {
    await fc.assert(
      fc.asyncProperty(flagArgs, fc.option(configText, { nil: undefined }), async (flags, text) => {
        const argv = text === undefined ? flags : [...flags, `--config=${CONFIG_PATH}`];
        const outcome = await configure(argv, text === undefined ? {} : { [CONFIG_PATH]: text });
        if ('refused' in outcome) {
          expect(outcome.refused.message).toMatch(/--[a-z]|file|flag|argument|unknown command "/);
          return;
        }
        for (const e of outcome.errors) {
          expect(typeof e.message === 'string' && e.message.length > 0, JSON.stringify(e)).toBe(true);
          // A field's path or a flag; the empty path is the document itself ("must be an object").
          expect(typeof e.field === 'string', JSON.stringify(e)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: CONFIG_RUNS },
    );
  }, 120_000);

  // Known-bad values, each in an otherwise valid file: the field must be named, whatever else is there.
  // (Zero is not among them: Go defaults a zero duration or count, as we do.)
  const BAD: [field: string, value: unknown][] = [
    ['maxPods', -1], ['syncFrequency', '-10s'], ['fileCheckFrequency', '-1s'], ['cgroupDriver', 'bogus'],
    ['cpuManagerPolicy', 'bogus'], ['containerLogMaxSize', 'abc'], ['kubeReserved', { cpu: '-1' }],
    ['evictionHard', { 'bogus.signal': '1%' }], ['imageGCHighThresholdPercent', 101], ['nodeLeaseDurationSeconds', -1],
    ['authorization', { mode: 'Bogus' }], ['qosReserved', { memory: '150%' }], ['port', 70_000], ['syncFrequency', 'soon'],
  ];
  // (The flags touch none of these fields: a flag given would override the file, as in Go.)
  it(`names the field of a known-bad value among ${BAD.length} kinds, next to generated valid flags`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BAD), fc.constantFrom([], ['--v=2'], ['--hostname-override=fuzz'], ['--node-ip=10.0.0.1']), async ([field, value], flags) => {
        const doc = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', [field]: value };
        const outcome = await configure([...flags, `--config=${CONFIG_PATH}`], { [CONFIG_PATH]: toYaml(doc) });
        if ('refused' in outcome) {
          expect(outcome.refused.message).toContain(field);
          return;
        }
        expect(outcome.errors.map((e) => e.field).some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)), JSON.stringify(outcome.errors)).toBe(true);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it(`decodes ${MANIFEST_RUNS} generated manifests: a pod, or a reason; the event loop never held past 100 ms`, () => {
    // A stall is the CPU one decode holds the event loop for; on a loaded CI machine its wall time
    // also counts the other processes' turns, so both are printed and the CPU time is what is held to.
    let longestCpuMs = 0;
    let longestWallMs = 0;
    let longestText = '';
    const origin = { source: 'file' as const, origin: '/etc/kubernetes/manifests/fuzz.yaml', nodeName: 'fuzz-node' };
    fc.assert(
      fc.property(manifestText, (text) => {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const parsed = parseManifestText(text);
        const decoded = parsed.ok ? decodeStaticPod(parsed.doc, origin) : null;
        const wallMs = performance.now() - started;
        const used = process.cpuUsage(cpu);
        const cpuMs = (used.user + used.system) / 1000;
        if (cpuMs > longestCpuMs) [longestCpuMs, longestText] = [cpuMs, text];
        longestWallMs = Math.max(longestWallMs, wallMs);
        if (!parsed.ok) {
          expect(parsed.reason.length).toBeGreaterThan(0);
          return;
        }
        if (decoded!.ok) {
          expect(decoded!.value.metadata.name).toMatch(/-fuzz-node$/);
          expect(decoded!.value.spec.containers.length).toBeGreaterThan(0);
        } else {
          expect(decoded!.reason.length).toBeGreaterThan(0);
        }
      }),
      { seed: SEED, numRuns: MANIFEST_RUNS },
    );
    process.stdout.write(`fuzz seed ${SEED}: longest manifest decode ${longestCpuMs.toFixed(1)} ms CPU, ${longestWallMs.toFixed(1)} ms wall (${longestText.length} characters)\n`);
    expect(longestCpuMs).toBeLessThan(100);
  }, 120_000);
});
