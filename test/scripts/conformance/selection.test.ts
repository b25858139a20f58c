import { describe, expect, it } from 'vitest';
import { exactFocus, NAMED_SKIP, pickSubset, quoteMeta, SUITE_SKIP, specNamesOf } from '../../../scripts/conformance/selection.js';

const SELECTION = [
  '[sig-node] Pods should contain environment variables for services [NodeConformance] [Conformance]',
  '[sig-node] Sysctls [LinuxOnly] [NodeConformance] should support sysctls [MinimumKubeletVersion:1.21] [Conformance]',
  '[sig-node] Probing container should *not* be restarted with a GRPC liveness probe [NodeConformance]',
];

describe('pickSubset', () => {
  it('keeps the selected specs the focus matches', () => {
    expect(pickSubset(SELECTION, { focus: 'Sysctls|environment variables' })).toEqual([SELECTION[0], SELECTION[1]]);
  });

  it('keeps the named specs, narrowed further by a focus', () => {
    expect(pickSubset(SELECTION, { names: [SELECTION[2]!, SELECTION[1]!] })).toEqual([SELECTION[1], SELECTION[2]]);
    expect(pickSubset(SELECTION, { names: [SELECTION[2]!, SELECTION[1]!], focus: 'GRPC' })).toEqual([SELECTION[2]]);
  });

  it('keeps a named spec of the binary outside the selection, and only when named', () => {
    const beyond = ['[sig-node] Downward API should provide host IP and pod IP as an env var if pod uses host network [LinuxOnly]'];
    expect(pickSubset(SELECTION, { names: [beyond[0]!, SELECTION[0]!] }, beyond)).toEqual([SELECTION[0], beyond[0]]);
    expect(pickSubset(SELECTION, { focus: 'Downward|environment' }, beyond)).toEqual([SELECTION[0]]);
  });

  it('refuses a name neither selected nor in the binary, and a focus that matches nothing', () => {
    expect(() => pickSubset(SELECTION, { names: ['[sig-node] no such spec'] }, ['[sig-node] another'])).toThrow(/neither in the conformance selection nor a spec of the binary/);
    expect(() => pickSubset(SELECTION, { focus: 'nothing like it' })).toThrow(/no spec/);
  });
});

describe('specNamesOf', () => {
  it('reads one name a line, leaving blank lines and comments out', () => {
    expect(specNamesOf(`# rerun\n${SELECTION[0]}\n\n  ${SELECTION[1]}  \n`)).toEqual([SELECTION[0], SELECTION[1]]);
  });
});

describe('exactFocus', () => {
  it('quotes every metacharacter as Go\'s QuoteMeta does', () => {
    expect(quoteMeta('a.b+c*d?(e)|[f]{g}^h$\\')).toBe('a\\.b\\+c\\*d\\?\\(e\\)\\|\\[f\\]\\{g\\}\\^h\\$\\\\');
  });

  it('matches each named spec after whatever ginkgo puts before it, and no other', () => {
    const focus = new RegExp(exactFocus([SELECTION[2]!, SELECTION[0]!]));
    expect(SELECTION.map((n) => focus.test(`Top ${n}`))).toEqual([true, false, true]);
    expect(focus.test(SELECTION[0]!)).toBe(true);
    expect(focus.test(`${SELECTION[0]} [Slow]`)).toBe(false);
    expect(focus.test(`[sig-x]${SELECTION[0]}`)).toBe(false);
  });
});

describe('NAMED_SKIP', () => {
  it('skips none of the specs a list names, a slow or feature one included, where the suite\'s skip would', () => {
    const named = ['[sig-node] Pods should cap back-off at MaxContainerBackOff [Slow] [NodeConformance]', '[sig-node] kubelet [Feature:NodeLogQuery] should return the logs'];
    expect(named.filter((n) => new RegExp(NAMED_SKIP).test(n))).toEqual([]);
    expect(named.filter((n) => new RegExp(SUITE_SKIP).test(n))).toEqual(named);
  });
});

describe('a spec whose text ends in a space', () => {
  const spaced = '[sig-node] Events should be sent by kubelets and the scheduler about pods scheduling and running ';
  it('is found by its trimmed name, as a names file holds it, and its focus matches the text ginkgo has', () => {
    expect(pickSubset([], { names: [spaced.trim()] }, [spaced])).toEqual([spaced]);
    expect(new RegExp(exactFocus([spaced])).test(`Kubernetes e2e suite ${spaced}`)).toBe(true);
  });
});
