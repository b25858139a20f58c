import { describe, expect, it } from 'vitest';
import { e2eFlags } from '../../../scripts/conformance/ginkgo.js';
import { parseOptions } from '../../../scripts/conformance/options.js';
import { resultsFile } from '../../../scripts/conformance/results.js';

describe('parseOptions: a kept subset', () => {
  it('reads its specs from docs/conformance/subsets and says how it was run', () => {
    const opts = parseOptions(['--runtime=go'], { CONFORMANCE_SUBSET: 'resize' });
    expect(opts.subset).toBe('resize');
    expect(opts.specsFile).toBe('docs/conformance/subsets/resize.txt');
    expect(opts.command).toBe('CONFORMANCE_SUBSET=resize npm run conformance -- --runtime=go');
  });

  it('refuses a name that is not a plain file name, and a second list of specs beside it', () => {
    expect(() => parseOptions([], { CONFORMANCE_SUBSET: '../x' })).toThrow(/lowercase letters, digits and dashes/);
    expect(() => parseOptions([], { CONFORMANCE_SUBSET: 'resize', CONFORMANCE_SPECS: '/tmp/x' })).toThrow(/without CONFORMANCE_SPECS/);
  });
});

describe('parseOptions: the e2e binary', () => {
  it('is e2e.test unless CONFORMANCE_E2E names another file of KUBE_LAB_BIN, which the command then shows', () => {
    expect(parseOptions([], {}).e2eBinary).toBe('e2e.test');
    const dra = parseOptions([], { CONFORMANCE_E2E: 'e2e-dra.test', CONFORMANCE_SUBSET: 'dra' });
    expect(dra.e2eBinary).toBe('e2e-dra.test');
    expect(dra.command).toBe('CONFORMANCE_SUBSET=dra CONFORMANCE_E2E=e2e-dra.test npm run conformance');
    expect(() => parseOptions([], { CONFORMANCE_E2E: '../bin/e2e.test' })).toThrow(/file name in KUBE_LAB_BIN/);
  });

  it('shows the lab\'s settings a run was given (containerd\'s release, its CDI dirs), quoted', () => {
    const env = { CONFORMANCE_SUBSET: 'dra', CONFORMANCE_E2E: 'e2e-dra.test', CONTAINERD_RELEASE: 'trixie', CDI_SPEC_DIRS: '/etc/cdi /var/run/cdi' };
    expect(parseOptions(['--runtime=go'], env).command)
      .toBe('CONFORMANCE_SUBSET=dra CONFORMANCE_E2E=e2e-dra.test CONTAINERD_RELEASE=trixie CDI_SPEC_DIRS=\'/etc/cdi /var/run/cdi\' npm run conformance -- --runtime=go');
  });
});

describe('e2eFlags', () => {
  it('tells the suite the node\'s root directory, where specs that deploy node plugins mount theirs', () => {
    const flags = e2eFlags({ kubeconfig: '/k', endpoint: 'unix:///c.sock', reportDir: '/r', kubeletRootDir: '/n/root' });
    expect(flags).toContain('--kubelet-root-dir=/n/root');
    expect(flags).toContain('--container-runtime-endpoint=unix:///c.sock');
  });
});

describe('resultsFile', () => {
  it('keeps a subset\'s results beside its spec list, a full run\'s in docs, any other partial run in test-artifacts', () => {
    expect(resultsFile('ts', true, 'resize')).toBe('docs/conformance/subsets/resize.kts.json');
    expect(resultsFile('go', true, 'resize')).toBe('docs/conformance/subsets/resize.go.json');
    expect(resultsFile('ts', false)).toBe('docs/conformance/kts.json');
    expect(resultsFile('go', true)).toBe('test-artifacts/conformance/go.partial.json');
  });
});
