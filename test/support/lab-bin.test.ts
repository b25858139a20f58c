import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { absentLabBinaries, DEFAULT_KUBE_LAB_BIN, kubeLabBin, labBinary, notBuilt, requireLabBinary } from './lab-bin.js';
import { kubeLabPart } from './kube-lab.js';

function binDir(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kts-lab-bin-'));
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe('the upstream binaries of KUBE_LAB_BIN', () => {
  it('are looked for in $KUBE_LAB_BIN, else in the lab scripts\' default', () => {
    expect(kubeLabBin({})).toBe(DEFAULT_KUBE_LAB_BIN);
    expect(kubeLabBin({ KUBE_LAB_BIN: '/x' })).toBe('/x');
  });

  it('count only executables, and the control plane as there when a multi-call kube-lab is', () => {
    const dir = binDir('kubelet', 'kube-lab');
    writeFileSync(join(dir, 'ginkgo'), 'not executable');
    const env = { KUBE_LAB_BIN: dir };
    expect(labBinary('kubelet', env)).toBe(join(dir, 'kubelet'));
    expect(labBinary('ginkgo', env)).toBeUndefined();
    expect(absentLabBinaries(['kube-apiserver', 'kube-scheduler', 'kubelet', 'ginkgo', 'e2e.test'], env)).toEqual(['ginkgo', 'e2e.test']);
  });

  it('name what is missing, where, and that it is built on the machine', () => {
    const env = { KUBE_LAB_BIN: binDir() };
    expect(notBuilt(['kubelet'], env)).toBe(`no kubelet in KUBE_LAB_BIN=${env.KUBE_LAB_BIN} (built from Kubernetes source on this machine, never shipped: docs/reference/build-and-test.md says how)`);
    expect(() => requireLabBinary('e2e.test', env)).toThrow(`no e2e.test in KUBE_LAB_BIN=${env.KUBE_LAB_BIN}`);
  });

  it('make the real control plane a part that is unbuilt, not missing, without them', () => {
    const scripts = binDir('up.sh');
    const env = { KUBELET_IT_KUBE_LAB_SCRIPTS: scripts, KUBECTL: '/bin/sh', PATH: `${binDir('etcd')}:/usr/bin`, KUBE_LAB_BIN: binDir('kube-apiserver') };
    const part = kubeLabPart(env, ['kubelet']);
    expect(part.missing).toBe('');
    expect(part.unbuilt).toBe(`no kube-controller-manager, kube-scheduler, kubelet in KUBE_LAB_BIN=${env.KUBE_LAB_BIN} (built from Kubernetes source on this machine, never shipped: docs/reference/build-and-test.md says how)`);
    expect(kubeLabPart({ ...env, KUBE_LAB_BIN: binDir('kube-lab', 'kubelet') }, ['kubelet']).unbuilt).toBe('');
  });
});
