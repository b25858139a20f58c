import { describe, expect, it } from 'vitest';
import { formatUsage } from '../../../src/domain/config/usage.js';
import { FLAG_TABLE } from '../../../src/domain/config/flag-table.js';
import { versionLine, rawVersionInfo } from '../../../src/domain/config/version.js';

describe('formatUsage', () => {
  const usage = formatUsage();

  it('lists every flag of the table with its help text', () => {
    for (const spec of FLAG_TABLE) {
      expect(usage).toContain(`--${spec.name}`);
      expect(usage).toContain(spec.help.split('\n')[0]?.slice(0, 40));
    }
  });

  it('says what is built: cluster mode and the kubelet server, every subcommand (#14)', () => {
    expect(usage).not.toMatch(/not implemented/);
    expect(usage).toContain('serves the kubelet server (port 10250)');
    for (const sub of ['config', 'replay', 'report', 'runtime serve', 'graph', 'visualize']) expect(usage).toContain(`kubelet-ts ${sub} `);
  });

  it('shows defaults from the flag-only configuration and the flag defaults', () => {
    expect(usage).toMatch(/--max-pods int32 +Most pods this kubelet runs\. \(default 110\)/);
    expect(usage).toMatch(/--read-only-port int32 .*\(default 10255\)/);
    expect(usage).toMatch(/--root-dir string .*\(default "\/var\/lib\/kubelet"\)/);
    expect(usage).toContain('(default memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%,imagefs.available<15%,imagefs.inodesFree<5%)');
  });

  it('marks deprecated and kubelet-ts flags, and lists the feature gates', () => {
    expect(usage).toMatch(/--maximum-dead-containers int32 .*\(DEPRECATED: Use --eviction-hard/);
    expect(usage).toMatch(/--event-log string .*\[kubelet-ts\]/);
    expect(usage).toContain('MemoryQoS=true|false (ALPHA - default=false)');
    expect(usage).toContain('-h, --help');
    expect(usage).toContain('-v, --v uint32');
  });
});

describe('version', () => {
  it('prints the Kubernetes version we follow with a kubelet-ts suffix', () => {
    expect(versionLine()).toBe('Kubernetes v1.35.0-kubelet-ts');
    expect(JSON.parse(rawVersionInfo())).toMatchObject({ major: '1', minor: '35', gitVersion: 'v1.35.0-kubelet-ts' });
  });
});
