import { describe, expect, it } from 'vitest';
import { runGraphCommand } from '../../src/bin/commands/graph.js';
import { PHASE_IDS } from '../../src/domain/phases.js';
import { MACHINES } from '../../src/machines/index.js';

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runGraphCommand(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('kubelet-ts graph', () => {
  it('writes every machine as mermaid by default', async () => {
    const { code, stdout } = await run([]);
    expect(code).toBe(0);
    expect(stdout.match(/^stateDiagram-v2$/gm)?.length).toBe(Object.keys(MACHINES).length);
    for (const name of Object.keys(MACHINES)) expect(stdout).toContain(`%% ${name}:`);
    expect(stdout).toContain('%% podWorker');
  });

  it('writes one machine when named', async () => {
    const { code, stdout } = await run(['--machine', 'runtime', '--format=mermaid']);
    expect(code).toBe(0);
    expect(stdout.match(/^stateDiagram-v2$/gm)?.length).toBe(1);
    expect(stdout).toContain('%% runtime');
  });

  it('draws the supervisor as SVG laid out by elkjs: every phase a state, transitions as paths', async () => {
    const { code, stdout } = await run(['--machine=supervisor', '--format', 'svg']);
    expect(code).toBe(0);
    expect(stdout.startsWith('<svg')).toBe(true);
    for (const phase of PHASE_IDS) {
      const leaf = phase.split('.')[1]!;
      expect(stdout).toMatch(new RegExp(`data-state="supervisor\\.[A-Za-z]+\\.${leaf}"`));
    }
    const paths = [...stdout.matchAll(/<path d="M([\d.-]+),([\d.-]+)/g)];
    expect(paths.length).toBeGreaterThan(PHASE_IDS.length);
    const [, w, h] = /viewBox="0 0 (\d+) (\d+)"/.exec(stdout)!;
    expect(stdout).toContain("kubelet.stop.requested → stopping");
    // every edge starts inside the drawing: coordinates were made absolute
    for (const p of paths) {
      expect(Number(p[1])).toBeGreaterThanOrEqual(0);
      expect(Number(p[1])).toBeLessThanOrEqual(Number(w));
      expect(Number(p[2])).toBeLessThanOrEqual(Number(h));
    }
    expect(stdout).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it.each([
    [['--format', 'png'], /--format must be/],
    [['--machine', 'nope'], /no machine named/],
    [['--format', 'svg'], /draws one machine/],
    [['extra'], /unexpected argument: extra/],
    [['--bogus'], /unknown flag: --bogus/],
    [['--machine'], /flag needs a value: --machine/],
  ])('rejects %j with exit 2', async (argv, message) => {
    const { code, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('kubelet-ts graph --format svg', () => {
  it.each(['runtime', 'syncLoop', 'podConfig', 'pleg', 'podWorker', 'probe'])('lays out %s', async (machine) => {
    const { code, stdout } = await run(['--machine', machine, '--format', 'svg']);
    expect(code).toBe(0);
    expect(stdout).toContain(`data-machine="${machine}"`);
    expect(stdout).toMatch(/class="state /);
  });
});
