import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { enterCommand, holderScript, shellQuote } from '../../../src/adapters/embedded-runtime/mount-namespace.js';
import type { MountPlan } from '../../../src/adapters/embedded-runtime/mount-plan.js';

const TOOLS = { unshare: '/usr/bin/unshare', mount: '/usr/bin/mount', nsenter: '/usr/bin/nsenter', sh: '/bin/sh', env: '/usr/bin/env' };

describe('enterCommand', () => {
  const env = { PATH: '/bin', LD_PRELOAD: '/x.so', TMPDIR: '/t', 'dotted.name': 'v' };

  it('leaves everything to nsenter when the user is the runtime\'s', () => {
    expect(enterCommand(TOOLS, { argv: ['sh'], env }, 0)).toEqual({ enterArgs: [], env, command: ['sh'] });
  });

  it.each([
    [{ uid: 1000 }, ['-G', '0', '-S', '1000']],
    [{ gid: 50 }, ['-G', '50']],
    [{ uid: 1000, gid: 50 }, ['-G', '50', '-S', '1000']],
  ])('switches user as libuv would (%o → %o), handing the loader variables over through env(1) after the switch', (user, enterArgs) => {
    expect(enterCommand(TOOLS, { argv: ['sh', '-c', 'x'], env, ...user }, 0)).toEqual({
      enterArgs,
      env: { PATH: '/bin', 'dotted.name': 'v' },
      command: ['/usr/bin/env', 'LD_PRELOAD=/x.so', 'TMPDIR=/t', 'sh', '-c', 'x'],
    });
  });

  it('refuses a command named with \'=\', which env(1) would take for a variable', () => {
    expect(() => enterCommand(TOOLS, { argv: ['/opt/a=b'], env, uid: 1 }, 0)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CRI_INVALID_ARGUMENT' }));
  });
});

describe('holderScript', () => {
  const plan: MountPlan = {
    overlays: [{ at: '/dev', rebind: ['pts', 'shm'], create: [{ rel: 'termination-log', kind: 'file' }] }],
    createOnHost: [],
    binds: [{ hostPath: "/var/lib/it's here", containerPath: '/data', target: '/data', readonly: true, propagation: 'rslave' }],
  };

  it('is valid sh, quoting every path', () => {
    const script = holderScript({ plan, nsDir: '/state/shims/c/ns', tools: TOOLS, workingDir: '/data', command: 'sh', path: '/bin' });
    execFileSync('sh', ['-n', '-c', script]);
    expect(script).toContain(`'/usr/bin/mount' '--rbind' '-o' 'ro' '--make-rslave' '/var/lib/it'\\''s here' '/data'`);
    expect(script).toContain(`'/usr/bin/mount' '--no-canonicalize' '--rbind' '/proc/self/fd/4/pts' '/dev/pts'`);
  });
});

describe('shellQuote', () => {
  it.each(['plain', "it's", '$(rm -rf /) `x` "y" \\ \n', ''])('gives sh back %j unchanged', (word) => {
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`]).toString()).toBe(word);
  });
});
