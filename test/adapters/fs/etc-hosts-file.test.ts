import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureHostsFile } from '../../../src/adapters/fs/etc-hosts-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-etchosts-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ensureHostsFile', () => {
  const pod = (hostNetwork: boolean) => ({ metadata: { name: 'web', namespace: 'shop', uid: 'u' }, spec: { containers: [], hostNetwork } });

  it('writes <podDir>/etc-hosts with mode 0644, rewriting it each time', async () => {
    const path = await ensureHostsFile(pod(false), { path: join(dir, 'etc-hosts'), podIPs: ['10.0.0.9'], clusterDomain: 'cluster.local' });
    expect(path).toBe(join(dir, 'etc-hosts'));
    chmodSync(path, 0o600);
    await ensureHostsFile(pod(false), { path: join(dir, 'etc-hosts'), podIPs: ['10.0.0.9'], clusterDomain: 'cluster.local' });
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['etc-hosts']);
  });

  it('copies the node hosts file for a hostNetwork pod, and fails with KLT_ERR_HOST_IO when it is missing', async () => {
    writeFileSync(join(dir, 'node-hosts'), '127.0.0.1\tlocalhost\n');
    await ensureHostsFile(pod(true), { path: join(dir, 'etc-hosts'), podIPs: [], clusterDomain: 'c', nodeHostsPath: join(dir, 'node-hosts') });
    expect(readFileSync(join(dir, 'etc-hosts'), 'utf8')).toBe('# Kubernetes-managed hosts file (host network).\n127.0.0.1\tlocalhost\n');
    await expect(ensureHostsFile(pod(true), { path: join(dir, 'etc-hosts'), podIPs: [], clusterDomain: 'c', nodeHostsPath: join(dir, 'nope') })).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
  });
});
