import { mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { explainFailedSpecs, explainFromJournal, keepJournal, PODS_PER_SPEC } from '../../../scripts/conformance/explain-failures.js';
import { parseJunit, podsNamed, testNamespaces, type SpecResult } from '../../../scripts/conformance/junit.js';
import { FileJournalSink } from '../../../src/adapters/journal-file/file-sink.js';
import { readJournal } from '../../../src/adapters/journal-file/reader.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../../../src/domain/journal/record.js';

const NS = 'container-probe-4120';
// A failed spec as ginkgo v2 reports it (the lines of a real run's report): its output names the namespace the framework made for it.
const JUNIT = `<testsuites><testsuite name="Kubernetes e2e suite">
  <testcase name="[It] [sig-node] Probing container should be restarted with a exec &#34;cat /tmp/health&#34; liveness probe [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="failed" time="70.1">
    <failure message="pod never restarted" type="failed">[FAILED] pod never restarted</failure>
    <system-err>STEP: Building a namespace api object, basename container-probe 11/28/26 10:24:11.502&#xA;STEP: Waiting for a default service account to be provisioned in namespace 11/28/26 10:24:11.604&#xA;Nov 28 10:24:11.624: INFO: Waiting up to 5m0s for pod &#34;liveness-0a1b&#34; in namespace &#34;${NS}&#34; to be &#34;running&#34;&#xA;STEP: Collecting events from namespace &#34;${NS}&#34;. 11/28/26 10:24:13.684&#xA;STEP: Destroying namespace &#34;${NS}&#34; for this suite. 11/28/26 10:24:13.694</system-err>
  </testcase>
  <testcase name="[It] [sig-node] Pods should get a host IP [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="passed" time="3"></testcase>
</testsuite></testsuites>`;

/** The fixture log (recorded by the real binary) with its pods moved into the failed spec's namespace. */
function recordsIn(namespace: string): JournalRecord[] {
  const text = JSON.stringify(readJournal('test/fixtures/eventlogs/standalone-embedded.jsonl').records);
  return JSON.parse(text.replaceAll('"namespace":"default"', `"namespace":"${namespace}"`)) as JournalRecord[];
}

describe('conformance: explain on the failed specs\' pods', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('reads the test namespaces a failed spec\'s report names, and none for a spec that passed', () => {
    const [failed, passed] = parseJunit(JUNIT).specs;
    expect(failed!.namespaces).toEqual([NS]);
    expect(failed!.pods).toEqual(['liveness-0a1b']);
    expect(passed!.namespaces).toBeUndefined();
    expect(podsNamed('ExecWithOptions {Command:[ip link] Namespace:e2e-privileged-pod-9788 PodName:privileged-pod ContainerName:c}')).toEqual(['privileged-pod']);
    expect(testNamespaces('Collecting events from namespace "pods-77". namespace: "emptydir-9"')).toEqual(['pods-77', 'emptydir-9']);
    expect(testNamespaces('the default namespace "default"')).toEqual([]);
  });

  it('tells the stories of a failed spec\'s pods, citing journal records, and leaves passed specs alone', () => {
    const records = recordsIn(NS);
    const explained = explainFailedSpecs(parseJunit(JUNIT).specs, records);
    expect(explained).toHaveLength(1);
    const [spec] = explained;
    expect(spec!.spec).toMatch(/^\[sig-node\] Probing container should be restarted/);
    expect(spec!.pods.length).toBeGreaterThan(0);
    expect(spec!.pods.length).toBeLessThanOrEqual(PODS_PER_SPEC);
    for (const { pod, answer } of spec!.pods) {
      expect(pod.startsWith(`${NS}/`)).toBe(true);
      expect(answer.startsWith(`pod ${pod} (uid `)).toBe(true);
      expect(answer).toMatch(/container main started \(\w+\) {2}\[#\d+\]/);
      const seqs = new Set(records.map((r) => r.seq));
      for (const m of answer.matchAll(/#(\d+)/g)) expect(seqs.has(Number(m[1]))).toBe(true);
    }
  });

  it('tells first the pods the spec\'s output names', () => {
    const records = recordsIn(NS);
    const spec: SpecResult = { name: 's', status: 'failed', seconds: 1, namespaces: [NS], pods: ['crash-fixture-node'] };
    const [explained] = explainFailedSpecs([spec], records);
    expect(explained!.pods[0]!.pod).toBe(`${NS}/crash-fixture-node`);
    const [unnamed] = explainFailedSpecs([{ ...spec, pods: [] }], records);
    expect(unnamed!.pods[0]!.pod).not.toBe(`${NS}/crash-fixture-node`);
  });

  it('says why when it tells no pod', () => {
    const specs: SpecResult[] = [
      { name: 'no namespace', status: 'timedout', seconds: 1 },
      { name: 'an empty namespace', status: 'failed', seconds: 1, namespaces: ['secrets-5'] },
    ];
    expect(explainFailedSpecs(specs, recordsIn(NS))).toEqual([
      { spec: 'no namespace', namespaces: [], pods: [], note: 'the report names no test namespace' },
      { spec: 'an empty namespace', namespaces: ['secrets-5'], pods: [], note: 'the journal knows no pod in secrets-5' },
    ]);
  });

  it('keeps the events directory beside the results, and explain answers from the copy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-conformance-journal-'));
    const events = join(dir, 'root', 'events');
    mkdirSync(events, { recursive: true });
    const run = '20261128T090000Z-42.jsonl';
    const sink = new FileJournalSink({ path: join(events, run), maxSegmentBytes: 64 * 1024 });
    sink.open({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 't', startTime: new Date(0).toISOString(), nodeName: 'conformance-ts', configSha256: '', machinesSha256: '', segment: 1 });
    for (const r of recordsIn(NS)) sink.append(r);
    await sink.close();
    symlinkSync(run, join(events, 'latest.jsonl'));
    const kept = join(dir, 'artifacts', 'journal');
    expect(keepJournal(events, kept)).toBe(true);
    expect(readlinkSync(join(kept, 'latest.jsonl'))).toBe(run);
    const fromCopy = explainFromJournal(parseJunit(JUNIT).specs, join(kept, 'latest.jsonl'));
    expect(fromCopy).toEqual(explainFailedSpecs(parseJunit(JUNIT).specs, recordsIn(NS)));
    expect(keepJournal(join(dir, 'nowhere'), kept)).toBe(false);
  });
});
