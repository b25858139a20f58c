import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enterCommand, fstabLine, holderScript, mountCalls, shellQuote } from '../../../../src/adapters/embedded-runtime/mounts/mount-namespace.js';
import type { BindStep, MountPlan } from '../../../../src/adapters/embedded-runtime/mounts/mount-plan.js';

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
    binds: [{ hostPath: "/var/lib/it's here", containerPath: '/data', target: '/data', readonly: true, propagation: 'rslave', batchable: true }],
  };
  const bind = (target: string, batchable: boolean, extra: Partial<BindStep> = {}): BindStep => ({
    hostPath: `/host${target}`, containerPath: target, target, readonly: false, propagation: 'rprivate', batchable, ...extra,
  });

  it('is valid sh, quoting every path', () => {
    const script = holderScript({ plan, nsDir: '/state/shims/c/ns', tools: TOOLS, workingDir: '/data', command: 'sh', path: '/bin' });
    execFileSync('sh', ['-n', '-c', script]);
    expect(script).toContain(`'/usr/bin/mount' '--rbind' '-o' 'ro' '--make-rslave' '/var/lib/it'\\''s here' '/data'`);
    expect(script).toContain(`'/usr/bin/mount' '--no-canonicalize' '--rbind' '/proc/self/fd/4/pts' '/dev/pts'`);
  });

  it('makes neighbouring batchable binds in one mount(8) call from a table it writes, every other bind alone', () => {
    const binds = [bind('/a', true), bind('/b', true, { readonly: true }), bind('/c', false), bind('/d', true), bind('/e', true, { hostPath: "/it's" })];
    const plan = { overlays: [], createOnHost: [], binds };
    expect(mountCalls(plan, '/state/ns').map((call) => call.map((step) => step.args.at(-1)))).toEqual([['/a', '/b'], ['/c'], ['/d', '/e']]);
    const script = holderScript({ plan, nsDir: '/state/ns', tools: TOOLS, workingDir: '/', command: 'sh', path: '/bin' });
    execFileSync('sh', ['-n', '-c', script]);
    expect(script).toContain(`printf '%s\\n' '/host/a /a none rbind,rprivate 0 0' '/host/b /b none rbind,ro,rprivate 0 0' >'/state/ns/mounts-0.fstab'`);
    expect(script).toContain(`'/usr/bin/mount' '--all' '--fstab' '/state/ns/mounts-0.fstab'`);
    expect(script).toContain(`'/usr/bin/mount' '--rbind' '--make-rprivate' '/host/c' '/c'`);
    expect(script).toContain(`'/it'\\''s /e none rbind,rprivate 0 0' >'/state/ns/mounts-2.fstab'`);
    // A single batchable bind is not worth a table.
    expect(holderScript({ plan: { overlays: [], createOnHost: [], binds: [bind('/a', true)] }, nsDir: '/n', tools: TOOLS, workingDir: '/', command: 'sh', path: '/bin' })).not.toContain('--fstab');
  });

  it('puts an overlay with nothing to bind back in the binds\' table, after the overlays it binds mounts back over', () => {
    const plan: MountPlan = {
      overlays: [
        { at: '/etc', rebind: [], create: [{ rel: 'settings', kind: 'directory' }] },
        { at: '/dev', rebind: ['shm'], create: [{ rel: 'termination-log', kind: 'file' }] },
      ],
      createOnHost: [],
      binds: [bind('/etc/settings', true), bind('/dev/termination-log', true)],
    };
    const script = holderScript({ plan, nsDir: '/state/ns', tools: TOOLS, workingDir: '/', command: 'sh', path: '/bin' });
    execFileSync('sh', ['-n', '-c', script]);
    const lines = script.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(lines.filter((l) => l.includes("'/usr/bin/mount'"))).toHaveLength(3);
    expect(at("'lowerdir=/dev,upperdir=/state/ns/1/upper,workdir=/state/ns/1/work' 'kubelet-ts' '/dev'")).toBeGreaterThan(at("exec 4<'/dev'"));
    expect(at("'/proc/self/fd/4/shm' '/dev/shm'")).toBeLessThan(at('mounts-0.fstab'));
    expect(script).toContain(`'kubelet-ts /etc overlay lowerdir=/etc,upperdir=/state/ns/0/upper,workdir=/state/ns/0/work 0 0' '/host/etc/settings /etc/settings none rbind,rprivate 0 0' '/host/dev/termination-log /dev/termination-log none rbind,rprivate 0 0' >'/state/ns/mounts-0.fstab'`);
    expect(script).not.toContain("exec 4<'/etc'");
  });
});

describe.runIf(process.getuid?.() === 0)('holderScript, run in a mount namespace of its own', () => {
  it('fails a shared mount(8) call naming every bind in it and what mount(8) said of the one that failed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'klt-holder-'));
    try {
      await mkdir(join(dir, 'ns'));
      for (const name of ['here', 'a', 'b']) await mkdir(join(dir, name));
      const binds = [
        { hostPath: join(dir, 'here'), containerPath: '/a', target: join(dir, 'a'), readonly: true, propagation: 'rprivate' as const, batchable: true },
        { hostPath: join(dir, 'gone'), containerPath: '/b', target: join(dir, 'b'), readonly: false, propagation: 'rprivate' as const, batchable: true },
      ];
      const script = holderScript({ plan: { overlays: [], createOnHost: [], binds }, nsDir: join(dir, 'ns'), tools: TOOLS, workingDir: '/', command: 'sh', path: '/bin' });
      // fd 3 is where the holder reports; the namespace goes with it.
      const said = spawnSync(TOOLS.unshare, ['--mount', '--propagation', 'slave', '--', 'sh', '-c', `${script}`], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
      const message = said.output[3]!.toString();
      expect(said.status).toBe(1);
      expect(message).toContain(`cannot mount host path ${JSON.stringify(join(dir, 'here'))} at container path "/a", host path ${JSON.stringify(join(dir, 'gone'))} at container path "/b": `);
      expect(message).toContain(`special device ${join(dir, 'gone')} does not exist`);
      expect(await readFile(join(dir, 'ns', 'mounts-0.fstab'), 'utf8')).toBe(binds.map(fstabLine).join('\n') + '\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('fstabLine', () => {
  it('escapes what separates fstab\'s fields, in octal, and carries read-only and propagation as options', () => {
    expect(fstabLine({ hostPath: '/a b\tc\\d\ne', containerPath: '/x', target: '/t y', readonly: true, propagation: 'rslave', batchable: true }))
      .toBe('/a\\040b\\011c\\134d\\012e /t\\040y none rbind,ro,rslave 0 0');
  });
});

describe('shellQuote', () => {
  it.each(['plain', "it's", '$(rm -rf /) `x` "y" \\ \n', ''])('gives sh back %j unchanged', (word) => {
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`]).toString()).toBe(word);
  });
});
