/**
 * `kubelet-ts --help`: every flag of the flag table with its type, help text, default and
 * deprecation notice, in pflag's layout. Defaults come from the same sources the parser uses:
 * the flag-only configuration for config-backed flags, DEFAULT_KUBELET_FLAGS for the others.
 */
import { flagOnlyDefaultConfiguration } from './defaults.js';
import { describeFeatureGates, resolveFeatureGates } from './feature-gates.js';
import { DEFAULT_KUBELET_FLAGS, FLAG_TABLE, type FlagSpec } from './flag-table.js';
import { flagTypeWord } from './flag-values.js';
import { getAtPath } from './merge.js';

const INTRO = `The kubelet is the node agent of Kubernetes. kubelet-ts is a kubelet in TypeScript: it reads
the Go kubelet's flags and KubeletConfiguration, registers the node with an API server and runs its
pods (--kubeconfig; standalone without it), runs static pods (from a manifest directory or an HTTP
URL) on a CRI runtime, serves the kubelet server (port 10250) and the read-only port, and records
every event of its actors in a replayable journal. What is not built yet: see the README.

Usage:
  kubelet-ts [flags]
  kubelet-ts config [flags]                            print the effective KubeletConfiguration as JSON
  kubelet-ts replay LOG                                replay an event log; exit 1 names the first divergence
  kubelet-ts report LOG [--json]                       the start-up, phase by phase, from an event log
  kubelet-ts report --compare BASELINE LOG             two start-ups side by side; exit 1 names what regressed
  kubelet-ts runtime serve --listen unix:///PATH       the embedded CRI runtime on its own (no isolation)
  kubelet-ts graph [--machine NAME] [--format F]       the statecharts of the machines (mermaid or svg)
  kubelet-ts visualize LOG [--listen HOST:PORT]        the visualizer over a recorded event log

Flags:
`;

export function formatUsage(): string {
  const config = flagOnlyDefaultConfiguration(resolveFeatureGates().gates);
  const rows = FLAG_TABLE.map((spec) => {
    const names = spec.short !== undefined ? `-${spec.short}, --${spec.name}` : `    --${spec.name}`;
    const type = flagTypeWord(spec.kind);
    return { left: `  ${names}${type === '' || 'meta' in spec.target ? '' : ` ${type}`}`, right: describe(spec, config) };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 3;
  return INTRO + rows.map((r) => `${r.left.padEnd(width)}${r.right.replace(/\n/g, `\n${' '.repeat(width)}`)}`).join('\n') + '\n';
}

function describe(spec: FlagSpec, config: unknown): string {
  let text = spec.help;
  if (spec.name === 'feature-gates') text += `\nKnown gates:\n${describeFeatureGates().join('\n')}`;
  const dflt = defaultText(spec, config);
  if (dflt !== '') text += ` (default ${dflt})`;
  if (spec.ours === true) text += ' [kubelet-ts]';
  if (spec.deprecated !== undefined) text += ` (DEPRECATED: ${spec.deprecated})`;
  return text;
}

function defaultText(spec: FlagSpec, config: unknown): string {
  const target = spec.target;
  if ('meta' in target) return '';
  const value = 'config' in target ? getAtPath(config, target.config) : DEFAULT_KUBELET_FLAGS[target.flags];
  if (value === null || value === undefined || value === '' || value === false) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : `[${value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '';
    const sep = spec.kind === 'langleMap' ? '<' : '=';
    return entries.map(([k, v]) => `${k}${sep}${String(v)}`).join(',');
  }
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
