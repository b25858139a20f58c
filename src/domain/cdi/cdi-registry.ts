/**
 * Resolving CDI device names against the specs a runtime read, as the CDI library's cache does:
 * specs come from directories in rising priority (/etc/cdi, then /var/run/cdi), a device defined in
 * a higher one hides the lower one's, and one defined twice at the same priority resolves to
 * neither (a conflict). The edits of the devices asked for are collected in order, each spec's own
 * edits once, before the first of its devices.
 */
import { parseQualifiedName, type CdiSpec, type ContainerEdits } from './cdi-spec.js';

export interface LoadedCdiSpec {
  path: string;
  /** The index of its directory: a later directory wins. */
  priority: number;
  spec: CdiSpec;
}

interface Entry { spec: LoadedCdiSpec; edits: ContainerEdits; conflict?: string }

export type CdiResolution = { ok: true; edits: ContainerEdits } | { ok: false; error: string };

function registry(specs: readonly LoadedCdiSpec[]): Map<string, Entry> {
  const devices = new Map<string, Entry>();
  for (const loaded of specs) {
    for (const device of loaded.spec.devices) {
      const name = `${loaded.spec.kind}=${device.name}`;
      const known = devices.get(name);
      if (known && known.spec.priority > loaded.priority) continue;
      if (known && known.spec.priority === loaded.priority) {
        devices.set(name, { ...known, conflict: `conflicting device ${JSON.stringify(name)} (specs ${JSON.stringify(known.spec.path)}, ${JSON.stringify(loaded.path)})` });
        continue;
      }
      devices.set(name, { spec: loaded, edits: device.containerEdits });
    }
  }
  return devices;
}

function append(into: Required<ContainerEdits>, more: ContainerEdits | undefined): void {
  if (!more) return;
  into.env.push(...(more.env ?? []));
  into.deviceNodes.push(...(more.deviceNodes ?? []));
  into.mounts.push(...(more.mounts ?? []));
  into.hooks.push(...(more.hooks ?? []));
  into.additionalGids.push(...(more.additionalGids ?? []));
}

/** The edits for `names`, or the CDI library's "unresolvable CDI devices …" with each reason. */
export function resolveCdiDevices(specs: readonly LoadedCdiSpec[], names: readonly string[]): CdiResolution {
  const devices = registry(specs);
  const edits: Required<ContainerEdits> = { env: [], deviceNodes: [], mounts: [], hooks: [], additionalGids: [] };
  const unresolved: string[] = [];
  const specsApplied = new Set<string>();
  for (const name of names) {
    const parsed = parseQualifiedName(name);
    const entry = typeof parsed === 'string' ? undefined : devices.get(name);
    if (typeof parsed === 'string' || !entry || entry.conflict) {
      unresolved.push(`${name} (${typeof parsed === 'string' ? parsed : entry?.conflict ?? 'no spec defines it'})`);
      continue;
    }
    if (!specsApplied.has(entry.spec.path)) {
      specsApplied.add(entry.spec.path);
      append(edits, entry.spec.spec.containerEdits);
    }
    append(edits, entry.edits);
  }
  if (unresolved.length > 0) return { ok: false, error: `unresolvable CDI devices ${unresolved.join(', ')}` };
  return { ok: true, edits };
}

/** `env` with the edits' NAME=value entries applied: a name already set takes the edit's value. */
export function withCdiEnv(env: readonly { key: string; value: string }[], edits: ContainerEdits): { key: string; value: string }[] {
  const out = [...env];
  for (const entry of edits.env ?? []) {
    const eq = entry.indexOf('=');
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    const at = out.findIndex((e) => e.key === key);
    if (at >= 0) out[at] = { key, value };
    else out.push({ key, value });
  }
  return out;
}
