/**
 * Test files run in parallel, so two kubelets started with the default healthz port (10248) race
 * for it, and the loser fails start-up for a reason its test is not about. Every test that starts
 * the kubelet binary as a daemon must turn that listener off (or pick a free port).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

// The binary's subcommands that read files and exit listen on nothing (runKubeletCommand's
// `subcommand` is typed to those).
const DAEMON_START = /\[\s*(?:BIN|KUBELET_BIN)\s*,\s*(?!\s|'(?:replay|report|config|explain)'|subcommand\b)/;
const HEALTHZ_OFF = ['--healthz-port=0', 'healthzPort: 0', 'writeServerTestConfig'];

describe('tests that start the kubelet binary', () => {
  const starters = sources(join(root, 'test')).filter((f) => DAEMON_START.test(readFileSync(f, 'utf8')));

  it('are found (the pattern still matches how tests spawn it)', () => {
    expect(starters.length).toBeGreaterThan(3);
  });

  it('turn the default healthz listener off', () => {
    const offenders = starters.filter((f) => !HEALTHZ_OFF.some((m) => readFileSync(f, 'utf8').includes(m)));
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });
});
