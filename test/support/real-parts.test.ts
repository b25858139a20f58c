import { describe, expect, it } from 'vitest';
import { ALWAYS_THERE, allOf, chromiumPart, containerdPart, gateOf, kubectlPart, NOT_BUILT_MARK, partForEndpoint, skipReason } from './real-parts.js';

describe('gated suites', () => {
  it('run when their part is there, whatever CI says', () => {
    expect(gateOf(containerdPart({ KUBELET_IT_CRI: 'unix:///x.sock' }), { CI: 'true' })).toBe('run');
    expect(gateOf(ALWAYS_THERE, {})).toBe('run');
  });

  it('show as skipped outside CI and fail in CI when their part is missing', () => {
    const missing = containerdPart({});
    expect(missing.missing).toMatch(/KUBELET_IT_CRI is unset/);
    expect(gateOf(missing, {})).toBe('skip');
    expect(gateOf(missing, { CI: 'true' })).toBe('fail');
    expect(gateOf(chromiumPart('/nonexistent/chromium'), { CI: 'true' })).toBe('fail');
    expect(gateOf(kubectlPart('/nonexistent/kubectl'), { CI: 'true' })).toBe('fail');
  });

  it('need every part of a combined one', () => {
    expect(gateOf(allOf(ALWAYS_THERE, containerdPart({ KUBELET_IT_CRI: 'unix:///x.sock' })), { CI: 'true' })).toBe('run');
    const combined = allOf(kubectlPart('/nonexistent/kubectl'), containerdPart({}));
    expect(combined.missing).toMatch(/kubectl is not installed.*; KUBELET_IT_CRI is unset/);
    expect(gateOf(combined, { CI: 'true' })).toBe('fail');
  });

  it('show as skipped, in CI too, when only upstream binaries are not built, and say so in the reason', () => {
    const unbuilt = { name: 'the real control plane', missing: '', unbuilt: 'no kube-apiserver in KUBE_LAB_BIN=/x' };
    expect(gateOf(unbuilt, { CI: 'true' })).toBe('skip');
    expect(gateOf(unbuilt, {})).toBe('skip');
    expect(skipReason(unbuilt)).toBe(`${NOT_BUILT_MARK}: no kube-apiserver in KUBE_LAB_BIN=/x`);
    // A package CI installs still fails CI, whatever else is unbuilt.
    const both = allOf(unbuilt, containerdPart({}));
    expect(both.unbuilt).toBe('no kube-apiserver in KUBE_LAB_BIN=/x');
    expect(gateOf(both, { CI: 'true' })).toBe('fail');
    expect(skipReason(both)).toMatch(/^KUBELET_IT_CRI is unset.*; upstream binaries not built here: no kube-apiserver/);
    expect(gateOf(allOf(ALWAYS_THERE, { ...unbuilt, unbuilt: '' }), { CI: 'true' })).toBe('run');
  });

  it('need containerd for a socket endpoint and nothing for the embedded runtime', () => {
    expect(partForEndpoint('embedded', {})).toBe(ALWAYS_THERE);
    expect(partForEndpoint('', {}).name).toBe('containerd');
  });
});
