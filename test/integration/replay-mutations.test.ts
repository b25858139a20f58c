/**
 * Proof that the replay gate bites (issue 13): one-line changes to the machines — a delay, an
 * effect's input, a guard, a target, a dropped action, a changed event — each applied alone to the
 * built machine module, and the fixture that exercises it (standalone or cluster) replayed against
 * it. Every one must diverge.
 *
 * The mutants are made from dist/ (the code the fixture was recorded with): the change is applied to
 * the module's text, written beside the original so its relative imports resolve, and imported.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { replay, type ReplayResult } from '../../src/actors/journal/replay.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { runReplayCommand } from '../../src/bin/commands/replay.js';
import { inertSystemEffects, provideSystem, type MachineOverrides } from '../../src/bin/system.js';

const MACHINES_DIR = resolve('dist/src/machines');
const FIXTURE_PATHS = {
  standalone: resolve('test/fixtures/eventlogs/standalone-embedded.jsonl'),
  cluster: resolve('test/fixtures/eventlogs/cluster-embedded.jsonl'),
};
const FIXTURES = { standalone: readJournal(FIXTURE_PATHS.standalone), cluster: readJournal(FIXTURE_PATHS.cluster) };

interface Mutation {
  what: string;
  /** The fixture that exercises the mutated line; standalone unless said. */
  fixture?: keyof typeof FIXTURES;
  machine: keyof MachineOverrides;
  file: string;
  from: string;
  to: string;
}

const MODULE_EXPORT: Record<keyof MachineOverrides, string> = {
  supervisor: 'supervisorMachine', syncLoop: 'syncLoopMachine', podConfig: 'podConfigMachine', pleg: 'plegMachine',
  podWorker: 'podWorkerMachine', probe: 'probeMachine', runtime: 'runtimeMachine', nodeStatus: 'nodeStatusMachine',
  nodeLease: 'nodeLeaseMachine', statusManager: 'statusManagerMachine', certificateManager: 'certificateManagerMachine',
  servingCertificateManager: 'servingCertificateManagerMachine', volumeManager: 'volumeManagerMachine', volume: 'volumeMachine',
  containerManager: 'containerManagerMachine', evictionManager: 'evictionManagerMachine', nodeShutdown: 'nodeShutdownMachine',
  pluginManager: 'pluginManagerMachine', pluginRegistration: 'pluginRegistrationMachine',
  deviceManager: 'deviceManagerMachine', devicePlugin: 'devicePluginMachine',
};

const MUTATIONS: Mutation[] = [
  // The three the issue found unseen by the old gate.
  { what: 'the pod worker asks syncPod for a pod without containers', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: 'pod: context.pod,\n                            probes: {', to: 'pod: { ...context.pod, spec: { ...context.pod.spec, containers: [] } },\n                            probes: {' },
  { what: 'the PLEG relists with previousDigest null', machine: 'pleg', file: 'pleg.machine.js',
    from: '({ previousDigest: context.digest })', to: '({ previousDigest: null })' },
  { what: 'the PLEG relists ten times less often', machine: 'pleg', file: 'pleg.machine.js',
    from: 'relistPeriod: ({ context }) => context.relistPeriodMs,', to: 'relistPeriod: ({ context }) => context.relistPeriodMs * 10,' },
  // Delays.
  { what: 'the pod worker resyncs with another jitter', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: '(1 + 0.5 * context.resyncJitterFraction)', to: '(1 + 0.25 * context.resyncJitterFraction)' },
  { what: 'the crash loop backs off a millisecond longer', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: 'backOffOrDeadline: ({ context }) => untilDeadlineOr(context, backOffDelayMs(context)),', to: 'backOffOrDeadline: ({ context }) => untilDeadlineOr(context, backOffDelayMs(context) + 1),' },
  { what: 'a failed sync backs off twice as long', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: 'return context.backOffPeriodMs;', to: 'return context.backOffPeriodMs * 2;' },
  { what: 'a failed image pull backs off half as long', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: 'imagePullBackOffPolicy: input.imagePullBackOff ?? imagePullBackoffPolicy,',
    to: 'imagePullBackOffPolicy: input.imagePullBackOff ?? { initialMs: imagePullBackoffPolicy.initialMs / 2, maxMs: imagePullBackoffPolicy.maxMs / 2 },' },
  { what: 'probes run at twice their period', machine: 'probe', file: 'probe.machine.js',
    from: 'period: ({ context }) => context.timing.periodSeconds * 1000,', to: 'period: ({ context }) => context.timing.periodSeconds * 2000,' },
  { what: 'a probe waits a millisecond more before its first run', machine: 'probe', file: 'probe.machine.js',
    from: 'initialDelay: ({ context }) => context.initialDelayRemainingMs,', to: 'initialDelay: ({ context }) => context.initialDelayRemainingMs + 1,' },
  { what: 'the CSINode is tried again a millisecond later', fixture: 'cluster', machine: 'pluginManager', file: 'plugin-manager.machine.js',
    from: 'csiNodeBackoff: ({ context }) => csiNodeBackoffMs(context.csiNodeAttempts),', to: 'csiNodeBackoff: ({ context }) => csiNodeBackoffMs(context.csiNodeAttempts) + 1,' },
  { what: 'the runtime is checked at twice its period', machine: 'runtime', file: 'runtime.machine.js',
    from: 'delays: { period: ({ context }) => context.periodMs },', to: 'delays: { period: ({ context }) => context.periodMs * 2 },' },
  { what: 'shutdown waits a second longer for the subsystems', machine: 'supervisor', file: 'supervisor.machine.js',
    from: 'stopTimeout: ({ context }) => context.stopTimeoutMs,', to: 'stopTimeout: ({ context }) => context.stopTimeoutMs + 1000,' },
  // Effect inputs.
  { what: 'a probe runs without its target', machine: 'probe', file: 'probe.machine.js',
    from: 'input: ({ context }) => ({ probe: context.probe, target: context.target,', to: 'input: ({ context }) => ({ probe: context.probe, target: null,' },
  { what: 'the file source is started with another input', machine: 'podConfig', file: 'pod-config.machine.js',
    from: 'periodMs: context.input.fileCheckFrequencyMs,', to: 'periodMs: context.input.fileCheckFrequencyMs * 2,' },
  // Guards and targets.
  { what: 'the runtime check guard is inverted', machine: 'runtime', file: 'runtime.machine.js',
    from: 'context.startedAtMs).health === health,', to: 'context.startedAtMs).health !== health,' },
  { what: 'a failed sync no longer backs off', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: "{ guard: 'hasSyncFailed', target: 'backingOff' },", to: "{ guard: 'hasSyncFailed', target: 'idle' }," },
  { what: 'a requested sync refreshes the status instead', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: "'pod.sync.requested': { guard: 'isActive', target: 'syncing', actions: 'recordSyncRequest' },",
    to: "'pod.sync.requested': { guard: 'isActive', target: 'refreshingStatus', actions: 'recordSyncRequest' }," },
  { what: 'a file source snapshot marks the source failing', machine: 'podConfig', file: 'pod-config.machine.js',
    from: "'pod.source.snapshot': { guard: 'isFromFileSource', target: '.healthy',", to: "'pod.source.snapshot': { guard: 'isFromFileSource', target: '.failing'," },
  // Actions dropped.
  { what: 'a sync no longer records its result', machine: 'podWorker', file: 'pod-worker.machine.js',
    from: "{ guard: 'syncHandedBackStatus', target: '#podWorker.decidingNext', actions: ['recordSyncResult', 'recordResizeOutcome', 'storeSyncStatus', 'notifyParent'] },",
    to: "{ guard: 'syncHandedBackStatus', target: '#podWorker.decidingNext', actions: ['recordResizeOutcome', 'storeSyncStatus', 'notifyParent'] }," },
  { what: 'a file source snapshot is merged but not passed on', machine: 'podConfig', file: 'pod-config.machine.js',
    from: "{ guard: 'isFromFileSource', target: '.healthy', actions: ['mergeSnapshot', 'sendOutbox'] },",
    to: "{ guard: 'isFromFileSource', target: '.healthy', actions: ['mergeSnapshot'] }," },
  // Events sent.
  { what: 'the runtime reports its health change with another reason', machine: 'runtime', file: 'runtime.machine.js',
    from: "{ type: 'runtime.health.changed', health, reason }", to: "{ type: 'runtime.health.changed', health, reason: 'mutated' }" },
  { what: 'the syncLoop hands its workers a sync with another reason', machine: 'syncLoop', file: 'sync-loop.machine.js',
    from: 'sendToChild(enqueue, podWorkerId(c.podUid), c.message);',
    to: "sendToChild(enqueue, podWorkerId(c.podUid), c.message.type === 'pod.sync.requested' ? { ...c.message, reason: 'relist' } : c.message);" },
  { what: 'the PLEG reports its events with one dropped', machine: 'pleg', file: 'pleg.machine.js',
    from: 'enqueue(sendParent({', to: 'enqueue(sendParent({ dropped: true,' },
  // Cluster mode: the node status, the lease and the status manager, against the cluster fixture.
  { what: 'the lease is renewed a millisecond later', fixture: 'cluster', machine: 'nodeLease', file: 'node-lease.machine.js',
    from: 'renewPeriod: ({ context }) => context.renewPeriodMs,', to: 'renewPeriod: ({ context }) => context.renewPeriodMs + 1,' },
  { what: 'a failed lease renewal is retried on another back-off', fixture: 'cluster', machine: 'nodeLease', file: 'node-lease.machine.js',
    from: 'retryDelay: ({ context }) => retryDelayMs(context.failures),', to: 'retryDelay: ({ context }) => retryDelayMs(context.failures + 1),' },
  { what: 'the node status is patched with another attempt number', fixture: 'cluster', machine: 'nodeStatus', file: 'node-status.machine.js',
    from: 'status: context.pending ?? {}, attempt: context.patchAttempt }),', to: 'status: context.pending ?? {}, attempt: context.patchAttempt + 1 }),' },
  { what: 'the node is registered without its health', fixture: 'cluster', machine: 'nodeStatus', file: 'node-status.machine.js',
    from: 'facts: context.facts, health: context.health }),', to: 'facts: context.facts, health: null }),' },
  { what: 'the status manager resyncs on another period', fixture: 'cluster', machine: 'statusManager', file: 'status-manager.machine.js',
    from: 'syncPeriod: ({ context }) => context.syncPeriodMs,', to: 'syncPeriod: ({ context }) => context.syncPeriodMs / 2,' },
];

const written: string[] = [];
afterAll(() => {
  for (const path of written) rmSync(path, { force: true });
});

async function mutant(m: Mutation, n: number): Promise<MachineOverrides> {
  const text = readFileSync(join(MACHINES_DIR, m.file), 'utf8');
  const occurrences = text.split(m.from).length - 1;
  expect(occurrences, `${m.file} must hold the mutated text exactly once: ${m.from}`).toBe(1);
  const path = join(MACHINES_DIR, `.mutant-${n}.${m.file}`);
  writeFileSync(path, text.replace(m.from, m.to));
  written.push(path);
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  return { [m.machine]: mod[MODULE_EXPORT[m.machine]] } as MachineOverrides;
}

const replayWith = (overrides: MachineOverrides, fixture: keyof typeof FIXTURES = 'standalone'): ReplayResult =>
  replay(FIXTURES[fixture].records, { machine: provideSystem(inertSystemEffects(), overrides), rootSystemId: 'supervisor' });

describe('the replay gate against one-line machine changes', () => {
  it('has no mutant left over from an earlier run, and twenty mutations to try', () => {
    for (const f of readdirSync(MACHINES_DIR).filter((name) => name.startsWith('.mutant-'))) rmSync(join(MACHINES_DIR, f));
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(Object.keys(FIXTURES) as (keyof typeof FIXTURES)[])('replays the %s fixture identically with the unchanged machines', (fixture) => {
    expect(replayWith({}, fixture)).toMatchObject({ ok: true });
  });

  it.each(MUTATIONS.map((m, i) => [m.what, m, i] as const))('kubelet-ts replay exits 1 naming the first divergent seq when %s', async (_what, m, i) => {
    let out = '';
    const io = { stdout: (s: string) => (out += s), stderr: () => {} };
    // The definitions do differ (that is the mutant); the replay itself must say where.
    const argv = ['--allow-definition-change', FIXTURE_PATHS[m.fixture ?? 'standalone']];
    const code = await runReplayCommand(argv, io, provideSystem(inertSystemEffects(), await mutant(m, i)));
    expect(code, `replay stayed identical: ${m.what}\n${out}`).toBe(1);
    expect(out).toMatch(/^replay: diverged at seq \d+, actor \S+ \(after \d+ identical records\)\n/);
  });

  it('names the field and both values: the relist delay, the relist input, the syncPod input', async () => {
    const [containers, digest, period] = await Promise.all(MUTATIONS.slice(0, 3).map((m, i) => mutant(m, 100 + i)));
    const at = (r: ReplayResult) => (r.ok ? null : r.divergence);
    expect(at(replayWith(period!))).toMatchObject({ actor: 'pleg', expected: { type: 'action', name: 'schedule' }, difference: { field: 'payload.delay', expected: 1000, actual: 10_000 } });
    expect(at(replayWith(digest!))).toMatchObject({ actor: 'pleg', expected: { type: 'action', name: 'spawn' }, difference: { field: 'payload.input.previousDigest', actual: null } });
    const syncPod = at(replayWith(containers!));
    expect(syncPod).toMatchObject({ expected: { type: 'action', name: 'spawn', payload: { src: 'syncPod' } } });
    expect(syncPod?.difference?.field).toMatch(/^payload\.input\.pod\.spec\.containers\.0/);
  });
});
