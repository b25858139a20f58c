import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { buildEffectiveConfig } from '../../../src/domain/config/effective.js';
import { HAS, LACKS, lackingGatesSetOn } from '../../../src/domain/config/feature-gate-support.js';

const head = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
const withFile = (file: Record<string, unknown>, argv: string[] = []) =>
  buildEffectiveConfig({ parsed: parseCommandLine(['--config=/etc/kubernetes/kubelet.yaml', ...argv]), file: { ...head, ...file }, fileName: '/etc/kubernetes/kubelet.yaml' });
const src = (path: string) => fileURLToPath(new URL(`../../../src/${path}`, import.meta.url));

// Built features whose gates once sat in LACKS: the file that does the work, and a word it must still contain.
const BUILT: [gate: string, file: string, marker: string][] = [
  ['MemoryManager', 'actors/resource-managers/memory-state-file.ts', 'memory_manager_state'],
  ['SystemdWatchdog', 'domain/node/systemd-watchdog.ts', 'WATCHDOG_USEC'],
  ['KubeletCgroupDriverFromCRI', 'actors/runtime/runtime-cgroup-driver.ts', 'runtimeConfig'],
  ['ProcMountType', 'domain/runtime/masked-paths.ts', 'Unmasked'],
  ['TopologyManagerPolicyOptions', 'domain/resource-managers/topology/policy-options.ts', 'prefer-closest-numa-nodes'],
  ['TopologyManagerPolicyAlphaOptions', 'domain/resource-managers/topology/policy-options.ts', 'TopologyManagerPolicyAlphaOptions'],
];

describe('HAS', () => {
  it.each(BUILT)('lists %s, which %s implements', (gate, file, marker) => {
    expect(existsSync(src(file)), file).toBe(true);
    expect(readFileSync(src(file), 'utf8')).toContain(marker);
    expect({ gate, has: HAS.has(gate), lacks: LACKS.has(gate) }).toEqual({ gate, has: true, lacks: false });
  });
});

describe('lackingGatesSetOn', () => {
  it('accepts MemoryManager and SystemdWatchdog set to true, their locked value', () => {
    expect(lackingGatesSetOn([{ field: 'featureGates', gates: { MemoryManager: true, SystemdWatchdog: true } }])).toEqual([]);
    const built = withFile({ featureGates: { MemoryManager: true } }, ['--feature-gates=SystemdWatchdog=true']);
    expect(built.errors).toEqual([]);
  });

  it('accepts a lacking feature\'s gate set to the value it is locked to', () => {
    expect(LACKS.has('SupplementalGroupsPolicy')).toBe(true);
    expect(withFile({ featureGates: { SupplementalGroupsPolicy: true, RecursiveReadOnlyMounts: true } }).errors).toEqual([]);
  });

  it('still refuses a lacking feature\'s unlocked gate set on', () => {
    expect(lackingGatesSetOn([{ field: '--feature-gates', gates: { MemoryQoS: true } }]).map((e) => e.field)).toEqual(['--feature-gates.MemoryQoS']);
  });

  it('leaves the other value of a lacking locked gate to the locked-gate check, reported once', () => {
    const built = withFile({ featureGates: { AllowOverwriteTerminationGracePeriodSeconds: true } });
    expect(built.errors.map((e) => e.field)).toEqual(['featureGates.AllowOverwriteTerminationGracePeriodSeconds']);
    expect(built.errors[0]?.message).toContain('locked to false');
  });

  it('lets prefer-closest-numa-nodes be used, with the alpha options gate it needs', () => {
    const built = withFile({
      topologyManagerPolicy: 'restricted', topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' },
      featureGates: { TopologyManagerPolicyAlphaOptions: true },
    });
    expect(built.errors).toEqual([]);
  });
});
