import { describe, expect, it } from 'vitest';
import { renderConformance, renderSubset } from '../../../scripts/conformance/report.js';
import type { ConformanceResults, Runtime } from '../../../scripts/conformance/results.js';
import type { SpecResult } from '../../../scripts/conformance/junit.js';

const PULL = '[sig-node] Container Runtime blackbox test when running a container with a new image should be able to pull image [NodeConformance]';
const GATES = '[sig-node] Pods should support pod readiness gates [NodeConformance]';
const ENV = '[sig-node] Pods should contain environment variables for services [NodeConformance] [Conformance]';

function run(runtime: Runtime, kubelet: string, specs: SpecResult[], wallSeconds: number, images = ['agnhost.tar', 'extra-agnhost.tar']): ConformanceResults {
  return {
    runtime, kubelet, date: '2026-11-25T23:40:28.697Z', machine: { cpus: 2, cpuModel: 'AMD EPYC', memGiB: 24, kernel: '6.18', loadAtStart: 0.5 },
    command: `npm run conformance${runtime === 'go' ? ' -- --runtime=go' : ''}`, procs: 2, wallSeconds, focus: '\\[NodeConformance\\]', skip: '\\[Serial\\]', images,
    partial: false, notSelected: 82, suiteFailures: [], specs,
  };
}

const ts = run('ts', 'kubelet-ts 0.1.0 (abc1234)', [
  { name: PULL, status: 'failed', seconds: 30, failure: 'pull failed' },
  { name: GATES, status: 'failed', seconds: 20, failure: 'Ready condition to be false initially' },
  { name: ENV, status: 'passed', seconds: 4 },
], 3000);
const go = run('go', 'Go kubelet v1.26.0', [
  { name: PULL, status: 'failed', seconds: 30, failure: 'pull failed too' },
  { name: GATES, status: 'passed', seconds: 10 },
  { name: ENV, status: 'timedout', seconds: 300, failure: 'A suite timeout occurred' },
], 1800);
const causes = [{ spec: PULL, cause: 'no registry | offline' }, { spec: ENV, cause: 'no image in the lab', labImagesOnly: true }];

describe('renderConformance', () => {
  const page = renderConformance({ ts, go, causes });
  const lines = page.split('\n');

  it('gives each kubelet its counts, wall time and processes', () => {
    expect(lines).toContain('| kubelet-ts 0.1.0 (abc1234) | 2026-11-25 | `npm run conformance` | **1** | 2 | 0 | 0 | 0 | 50 min | 2 | 2 × AMD EPYC, 24 GiB, load 0.50 at start |');
    expect(lines).toContain('| Go kubelet v1.26.0 | 2026-11-25 | `npm run conformance -- --runtime=go` | **1** | 1 | 1 | 0 | 0 | 30 min | 2 | 2 × AMD EPYC, 24 GiB, load 0.50 at start |');
    expect(page).toContain('3 of the binary\'s 85 specs');
  });

  it('names the suite\'s version the runs recorded, and v1.26 for runs kept before it was', () => {
    expect(page).toContain('The Kubernetes v1.26 e2e suite\'s node conformance selection');
    const newer = renderConformance({ ts: { ...ts, suite: 'v1.35.6+openshift' }, go: { ...go, suite: 'v1.35.6+openshift' }, causes });
    expect(newer).toContain('The Kubernetes v1.35 e2e suite\'s node conformance selection');
    expect(newer).toContain('one node of a real v1.35 control plane (v1.35.6+openshift)');
  });

  it('lists what fails on kubelet-ts only, with what the suite saw', () => {
    const section = page.slice(page.indexOf('## Fails on kubelet-ts only'), page.indexOf('## Every spec'));
    expect(section).toContain('(1)');
    expect(section).toContain(`| ${GATES} | Ready condition to be false initially |`);
    expect(section).not.toContain(PULL);
  });

  it('sums up each kept subset run on some kubelet: passes per kubelet, those failing on kubelet-ts only, its page', () => {
    const withSubsets = renderConformance({ ts, go, causes, subsets: [{ subset: 'extra', ts, go }, { subset: 'dra', go }, { subset: 'never' }] });
    expect(withSubsets).toContain('## Kept subsets (2)');
    expect(withSubsets.split('\n')).toContain('| [extra](conformance/subsets/extra.md) | **1** of 3 (kubelet-ts 0.1.0, 2026-11-25) | **1** of 3 (Go kubelet v1.26.0, 2026-11-25) | 1 |');
    expect(withSubsets.split('\n')).toContain('| [dra](conformance/subsets/dra.md) | not run | **1** of 3 (Go kubelet v1.26.0, 2026-11-25) |  |');
    expect(withSubsets).not.toContain('never');
    expect(page).not.toContain('## Kept subsets');
  });

  it('gives every spec that did not pass on either kubelet one line, a lab cause before the failure', () => {
    expect(lines).toContain(`| ${PULL} | failed | failed | lab: no registry \\| offline |`);
    expect(lines).toContain(`| ${ENV} | passed | timedout | A suite timeout occurred |`);
    expect(page).toContain('## Every spec that did not pass (3)');
  });

  it('gives a cause of the lab\'s images alone only to runs that had them alone', () => {
    const labOnly = renderConformance({ ts, go: run('go', 'Go kubelet v1.26.0', go.specs, 1800, ['agnhost.tar']), causes });
    expect(labOnly.split('\n')).toContain(`| ${ENV} | passed | timedout | lab: no image in the lab |`);
  });

  it('keeps the lab causes table, and reports one kubelet alone without the kubelet-ts-only list', () => {
    expect(lines).toContain(`| ${PULL} | no registry \\| offline | yes |`);
    expect(lines).toContain(`| ${ENV} | no image in the lab | no |`);
    const alone = renderConformance({ go, causes });
    expect(alone).not.toContain('## Fails on kubelet-ts only');
    expect(alone).toContain('| spec | Go kubelet | cause');
    expect(() => renderConformance({ causes })).toThrow(/no full run/);
  });
});

describe('renderSubset', () => {
  const subsetTs = { ...ts, suite: 'v1.35.6+openshift', partial: true, subset: 'resize' };
  const subsetGo = { ...go, suite: 'v1.35.6+openshift', partial: true, subset: 'resize' };
  const page = renderSubset({ subset: 'resize', ts: subsetTs, go: subsetGo, causes });
  const lines = page.split('\n');

  it('says which specs and how to run them again', () => {
    expect(page).toContain('# Upstream specs: the subset `resize`');
    expect(page).toContain('The 3 specs of the Kubernetes v1.35 e2e binary named in [resize.txt](resize.txt)');
    expect(page).toContain('`CONFORMANCE_SUBSET=resize npm run conformance`');
  });

  it('keeps the selection page\'s counts and failures, causes included', () => {
    expect(lines).toContain('| kubelet-ts 0.1.0 (abc1234) | 2026-11-25 | `npm run conformance` | **1** | 2 | 0 | 0 | 0 | 50 min | 2 | 2 × AMD EPYC, 24 GiB, load 0.50 at start |');
    expect(page).toContain('## Fails on kubelet-ts only (1)');
    expect(lines).toContain(`| ${PULL} | failed | failed | lab: no registry \\| offline |`);
  });

  it('lists every spec with each kubelet\'s status beside it, passed ones too', () => {
    const section = page.slice(page.indexOf('## Every spec (3)'));
    expect(section.split('\n')).toEqual(expect.arrayContaining([
      `| ${ENV} | passed | timedout |`,
      `| ${GATES} | failed | passed |`,
      `| ${PULL} | failed | failed |`,
    ]));
  });

  it('shows one kubelet alone until the other has run', () => {
    const alone = renderSubset({ subset: 'resize', ts: subsetTs, causes });
    expect(alone).not.toContain('Fails on kubelet-ts only');
    expect(alone.split('\n')).toContain(`| ${GATES} | failed |`);
  });
});
