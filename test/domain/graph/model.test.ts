import { describe, expect, it } from 'vitest';
import { activeStateIds, allStates, machineGraph } from '../../../src/domain/graph/model.js';
import { toMermaid } from '../../../src/domain/graph/mermaid.js';
import { PHASE_IDS } from '../../../src/domain/phases.js';
import { MACHINES } from '../../../src/machines/index.js';

const graphOf = (name: keyof typeof MACHINES) => machineGraph(name, MACHINES[name].root as never);

describe('machineGraph', () => {
  it('has a state for every phase of the supervisor, nested by its owner', () => {
    const g = graphOf('supervisor');
    const paths = allStates(g).map((s) => s.path.join('.'));
    for (const phase of PHASE_IDS) {
      const leaf = phase.split('.')[1]!;
      expect(paths.some((p) => p.endsWith(`.${leaf}`)), phase).toBe(true);
    }
    for (const s of ['running', 'stopping', 'stopped', 'failed']) expect(paths).toContain(s);
    const parse = allStates(g).find((s) => s.id === 'supervisor.command.parse')!;
    expect(parse.invokes).toEqual(['command.parse']);
  });

  it('labels the pod worker transitions with their events', () => {
    const g = graphOf('podWorker');
    expect(g.edges.length).toBeGreaterThan(5);
    const labels = g.edges.map((e) => e.label);
    expect(labels.some((l) => l.startsWith('pod.kill.requested'))).toBe(true);
    expect(labels.some((l) => l.startsWith('done('))).toBe(true);
    expect(labels.some((l) => l.startsWith('after('))).toBe(true);
    for (const e of g.edges) expect(e.label).not.toBe('');
  });

  it('labels the done event of an invoke without an id by the src it runs', () => {
    const labels = graphOf('runtime').edges.map((e) => e.label);
    expect(labels.some((l) => l.startsWith('done(checkRuntime)'))).toBe(true);
    expect(labels.every((l) => !/done\(\d/.test(l))).toBe(true);
  });

  it('marks parallel states (pod config runs its sources side by side)', () => {
    const g = graphOf('podConfig');
    expect(g.root.kind).toBe('parallel');
    expect(g.root.children.length).toBeGreaterThan(1);
  });

  it('names the active states of a state value, ancestors included', () => {
    const g = graphOf('supervisor');
    expect(activeStateIds(g, { run: 'nodeName' })).toEqual(['supervisor.run', 'supervisor.run.nodeName']);
    expect(activeStateIds(g, 'running')).toEqual(['supervisor.running']);
    expect(activeStateIds(g, { nope: 'x' })).toEqual([]);
  });
});

describe('toMermaid', () => {
  it('writes every supervisor state and its transitions as stateDiagram-v2', () => {
    const g = graphOf('supervisor');
    const text = toMermaid(g);
    expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
    for (const s of allStates(g).slice(1)) expect(text).toContain(`"${s.key}`);
    expect(text).toMatch(/command__parse --> command__debugServer : done\(command\.parse\)/);
    expect(text).toContain('command__parse : invoke command.parse');
    // braces balance: every composite state is closed
    expect((text.match(/{/g) ?? []).length).toBe((text.match(/}/g) ?? []).length);
  });

  it('separates parallel regions with --', () => {
    const text = toMermaid(graphOf('podConfig'));
    expect(text).toMatch(/^\s+--$/m);
  });

  it('writes each machine without dots in state ids', () => {
    for (const name of Object.keys(MACHINES) as (keyof typeof MACHINES)[]) {
      const text = toMermaid(graphOf(name));
      for (const m of text.matchAll(/ as (\S+)/g)) expect(m[1]).toMatch(/^[A-Za-z0-9_]+( \{)?$/);
    }
  });
});
