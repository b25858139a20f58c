/**
 * The replay gate (issue #3): event logs recorded by the real binary (scripts/record-eventlog.ts)
 * must replay identically against today's machines. A machine whose behaviour changed makes the
 * replay name the first divergent record — shown here with a deliberately altered machine.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { replay } from '../../src/actors/journal/replay.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { inertSystemEffects, provideSystem } from '../../src/bin/system.js';
import { syncLoopMachine } from '../../src/machines/sync-loop.machine.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';

const DIR = resolve('test/fixtures/eventlogs');
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.jsonl'));

describe('recorded event logs', () => {
  it('are there to replay', () => {
    expect(FIXTURES.length).toBeGreaterThan(0);
  });

  it.each(FIXTURES)('%s replays identically', (name) => {
    const log = readJournal(join(DIR, name));
    expect(log.skipped).toEqual([]);
    const result = replay(log.records, { machine: provideSystem(inertSystemEffects()), rootSystemId: 'supervisor' });
    expect(result).toMatchObject({ ok: true, records: log.records.length });
  });

  // XState memoises its transitions per event type for good (src/machines/answering-effect.ts): a
  // type naming a pod, a volume or one effect would grow that memo with every pod the node runs.
  it.each(FIXTURES)('%s has no event type that names a pod or one of its actors', (name) => {
    const { records } = readJournal(join(DIR, name));
    const types = new Set(records.filter((r) => r.type === 'event').map((r) => r.name));
    const actorIds = new Set(records.map((r) => r.actor).filter((a) => a.includes(':')));
    expect(actorIds.size).toBeGreaterThan(0);
    const naming = [...types].filter((t) => t.includes(':') || [...actorIds].some((id) => t.includes(id)));
    expect(naming).toEqual([]);
  });

  it('standalone-embedded.jsonl covers the pod lifecycle: pod workers, PLEG, probes, a crash loop, a rejected manifest', () => {
    const { records } = readJournal(join(DIR, 'standalone-embedded.jsonl'));
    const actors = new Set(records.map((r) => r.actor));
    expect([...actors].some((a) => a.startsWith('pod:'))).toBe(true);
    expect([...actors].some((a) => a.startsWith('probe:'))).toBe(true);
    expect(actors.has('pleg')).toBe(true);
    expect(records.some((r) => r.name === 'pod.manifest.rejected')).toBe(true);
    expect(records.some((r) => r.type === 'action' && r.name === 'schedule' && (r.payload as { event?: { type?: string } }).event?.type?.startsWith('xstate.after.backOffOrDeadline'))).toBe(true);
  });

  it('standalone-embedded.jsonl covers a failing image pull: ErrImagePull twice, the sync between handed the pull back-off; and readiness both ways', () => {
    const { records } = readJournal(join(DIR, 'standalone-embedded.jsonl'));
    type Step = { reason?: string; pullFailure?: { image: string } };
    const stepsOf = (r: (typeof records)[number]) => ((r.payload as { output?: { steps?: Step[] } }).output?.steps ?? []);
    const pullFailures = records.filter((r) => r.kind === 'input').flatMap(stepsOf).filter((s) => s.pullFailure?.image === 'registry.invalid/missing:1.0');
    expect(pullFailures.length).toBeGreaterThanOrEqual(2);
    expect(pullFailures.every((s) => s.reason === 'ErrImagePull')).toBe(true);
    const handed = records.filter((r) => r.name === 'spawn' && JSON.stringify(r.payload).includes('"imagePullBackOffEnds":{"registry.invalid/missing:1.0"'));
    expect(handed.length).toBeGreaterThan(0);
    const readiness = records.filter((r) => r.actor === 'syncLoop' && r.type === 'action' && r.name === 'send')
      .map((r) => (r.payload as { event?: { type?: string; probe?: string; result?: string } }).event)
      .filter((e) => e?.type === 'probe.result.changed' && e.probe === 'readiness').map((e) => e!.result);
    expect(readiness.slice(0, 2)).toEqual(['success', 'failure']);
  });

  it('cluster-embedded.jsonl covers cluster mode: node status, lease, status manager, mirror pod, an API outage, a deletion within its grace period', () => {
    const { records } = readJournal(join(DIR, 'cluster-embedded.jsonl'));
    const actors = new Set(records.map((r) => r.actor));
    for (const actor of ['nodeStatus', 'nodeLease', 'statusManager']) expect(actors.has(actor), actor).toBe(true);
    const inputs = records.filter((r) => r.kind === 'input').map((r) => r.name);
    // The status manager's effects answer as `effect.answered`, each naming itself.
    const answered = records.filter((r) => r.kind === 'input' && r.name === 'effect.answered').map((r) => (r.payload as { id: string }).id);
    expect(answered.some((id) => id.startsWith('createMirrorPod:'))).toBe(true);
    expect(inputs).toContain('xstate.done.actor.killPod');
    expect(answered.some((id) => id.startsWith('deletePod:'))).toBe(true);
    // The outage: API calls answered with failures, then succeeded again.
    const answers = records.filter((r) => r.kind === 'input' && /^xstate\.done\.actor\.(renewLease|patchNodeStatus)/.test(r.name));
    const failedAt = answers.findIndex((r) => JSON.stringify(r.payload).includes('"ok":false'));
    expect(failedAt).toBeGreaterThanOrEqual(0);
    expect(answers.slice(failedAt).some((r) => JSON.stringify(r.payload).includes('"ok":true'))).toBe(true);
  });

  it('cluster-embedded.jsonl holds a real cluster\'s pod whole: its kube-api-access, ConfigMap and Secret volumes mounted, no secret value', () => {
    const text = readFileSync(join(DIR, 'cluster-embedded.jsonl'), 'utf8');
    const { records } = readJournal(join(DIR, 'cluster-embedded.jsonl'));
    // The API source's snapshot, as the watch gave it: the projected volume's deepest field is there.
    const snapshot = records.find((r) => r.kind === 'input' && r.name === 'pod.source.snapshot' && JSON.stringify(r.payload).includes('kube-api-access-'));
    const web = (snapshot?.payload as { pods: { metadata: { name: string }; spec: { volumes: unknown[] } }[] }).pods.find((p) => p.metadata.name === 'web');
    expect(web?.spec.volumes).toContainEqual(expect.objectContaining({
      projected: expect.objectContaining({ sources: expect.arrayContaining([{ downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }]) }),
    }));
    expect(web?.spec.volumes).toContainEqual({ name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } });
    // API content is set up again at every sync (as Go's syncPod does): each volume is mounted, some more than once.
    const mounted = new Set(records.filter((r) => r.name === 'volume.mounted').map((r) => (r.payload as { volumeName: string }).volumeName));
    expect([...mounted].sort()).toEqual(['creds', expect.stringMatching(/^kube-api-access-/), 'settings']);
    expect(text).not.toContain('[depth]');
    expect(text).not.toContain('fixture-password');
    expect(text).not.toContain(Buffer.from('fixture-password').toString('base64'));
    expect(text).not.toMatch(/eyJ[\w-]{10,}\.eyJ/); // no service-account token (a JWT)
  });

  it('fails with the divergence when a machine changed: admission that refuses every pod', () => {
    const log = readJournal(join(DIR, 'standalone-embedded.jsonl'));
    // The same syncLoop, but with room for no pod on the node: the first ADD is now refused.
    type Input = { node: { allocatable: Record<string, number> } };
    const config = syncLoopMachine.config as unknown as { context: (a: { input: Input }) => unknown };
    const full = (input: Input): Input => ({ ...input, node: { ...input.node, allocatable: { ...input.node.allocatable, pods: 0 } } });
    const strict = createMachine(
      { ...(syncLoopMachine.config as object), context: (a: { input: Input }) => config.context({ input: full(a.input) }) } as never,
      syncLoopMachine.implementations as never,
    );
    const result = replay(log.records, { machine: provideSystem(inertSystemEffects(), { syncLoop: strict as never }), rootSystemId: 'supervisor' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.divergence.actor.startsWith('syncLoop') || result.divergence.actor.startsWith('pod:')).toBe(true);
    }
  });

  // Through the built binary: the definition hash is taken over the code that runs, and only dist/
  // is the code the recorder ran (vitest transpiles the sources anew).
  const replayCommand = (...args: string[]) =>
    runKubeletCommand('replay', args);

  it.each(FIXTURES)('the replay command says %s is identical, recorded by today\'s machine definitions', (name) => {
    const r = replayCommand(join(DIR, name));
    expect(r.stderr, `${name} is stale: re-record it with \`npm run record:eventlog\` and review the new log`).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
  });

  describe('a log recorded by other machine definitions', () => {
    let dir: string;
    let stale: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kts-stale-log-'));
      stale = join(dir, 'stale.jsonl');
      const [header, ...rest] = readFileSync(join(DIR, FIXTURES[0]!), 'utf8').split('\n');
      const changed = { ...(JSON.parse(header!) as Record<string, unknown>), machinesSha256: '0'.repeat(64) };
      writeFileSync(stale, [JSON.stringify(changed), ...rest].join('\n'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails the replay, naming both hashes and the command that re-records a fixture', () => {
      const r = replayCommand(stale);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/machine definitions differ .*recorded by 000000000000, today [0-9a-f]{12}.*npm run record:eventlog.*--allow-definition-change/);
    });

    it('replays anyway with --allow-definition-change, with a warning', () => {
      const r = replayCommand('--allow-definition-change', stale);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^replay: warning: the machine definitions differ/);
      expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    });
  });
});
