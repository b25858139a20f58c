/**
 * Container Device Interface specs, the files a DRA driver (or a device plugin) writes under
 * /etc/cdi and /var/run/cdi to say what a device adds to a container, and the device names that
 * point into them ("<vendor>/<class>=<name>"). A runtime resolves the names a container is given
 * (CRI's CDI_devices) against the specs it can read. The rules are the CDI specification's:
 * - a vendor or class starts with a letter, ends with a letter or digit, and holds letters,
 *   digits, '_', '-' and '.';
 * - a device name starts and ends with a letter or digit, and also allows ':';
 * - a spec names its `cdiVersion`, its `kind` ("<vendor>/<class>") and at least one device, each
 *   with edits; edits of the spec itself apply whenever one of its devices is used.
 */

export interface CdiMount { hostPath: string; containerPath: string; type?: string; options?: string[] }
export interface CdiDeviceNode { path: string; hostPath?: string; type?: string; major?: number; minor?: number; permissions?: string }
export interface CdiHook { hookName: string; path: string }

export interface ContainerEdits {
  env?: string[];
  deviceNodes?: CdiDeviceNode[];
  mounts?: CdiMount[];
  hooks?: CdiHook[];
  additionalGids?: number[];
}

export interface CdiSpec {
  cdiVersion: string;
  kind: string;
  devices: { name: string; containerEdits: ContainerEdits }[];
  containerEdits?: ContainerEdits;
}

export interface QualifiedName { vendor: string; class: string; name: string }

const LETTER = /^[A-Za-z]$/;
const ALNUM = /^[A-Za-z0-9]$/;

function vendorOrClassProblem(name: string): string | null {
  if (name === '') return 'empty name';
  if (!LETTER.test(name[0]!)) return `${JSON.stringify(name)}, should start with letter`;
  const inner = name.slice(1, -1).split('').find((c) => !ALNUM.test(c) && c !== '_' && c !== '-' && c !== '.');
  if (inner !== undefined) return `invalid character '${inner}' in name ${JSON.stringify(name)}`;
  if (!ALNUM.test(name[name.length - 1]!)) return `${JSON.stringify(name)}, should end with a letter or digit`;
  return null;
}

function deviceNameProblem(name: string): string | null {
  if (name === '') return 'invalid (empty) device name';
  if (!ALNUM.test(name[0]!)) return `invalid class ${JSON.stringify(name)}, should start with a letter or digit`;
  if (name.length === 1) return null;
  const inner = name.slice(1, -1).split('').find((c) => !ALNUM.test(c) && c !== '_' && c !== '-' && c !== '.' && c !== ':');
  if (inner !== undefined) return `invalid character '${inner}' in device name ${JSON.stringify(name)}`;
  if (!ALNUM.test(name[name.length - 1]!)) return `invalid name ${JSON.stringify(name)}, should end with a letter or digit`;
  return null;
}

/** "<vendor>/<class>", or the problem with it. */
export function parseKind(kind: string): { vendor: string; class: string } | string {
  const slash = kind.indexOf('/');
  if (slash <= 0 || slash === kind.length - 1) return `invalid kind ${JSON.stringify(kind)}: not <vendor>/<class>`;
  const vendor = kind.slice(0, slash);
  const cls = kind.slice(slash + 1);
  const vendorProblem = vendorOrClassProblem(vendor);
  if (vendorProblem) return `invalid vendor. ${vendorProblem}`;
  const classProblem = vendorOrClassProblem(cls);
  if (classProblem) return `invalid class. ${classProblem}`;
  return { vendor, class: cls };
}

/** "<vendor>/<class>=<name>", or the CDI library's words for what is wrong with it. */
export function parseQualifiedName(device: string): QualifiedName | string {
  const eq = device.indexOf('=');
  const qualifier = eq < 0 ? '' : device.slice(0, eq);
  const name = eq < 0 ? '' : device.slice(eq + 1);
  const slash = qualifier.indexOf('/');
  if (device.startsWith('/') || eq <= 0 || slash <= 0 || slash === qualifier.length - 1) return `unqualified device ${JSON.stringify(device)}, missing vendor`;
  if (name === '') return `unqualified device ${JSON.stringify(device)}, missing device name`;
  const kind = parseKind(qualifier);
  if (typeof kind === 'string') return `invalid device ${JSON.stringify(device)}: ${kind}`;
  const nameProblem = deviceNameProblem(name);
  if (nameProblem) return `invalid device ${JSON.stringify(device)}: ${nameProblem}`;
  return { ...kind, name };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const absent = (v: unknown) => v === undefined || v === null;
const text = (o: Record<string, unknown>, key: string): { [k: string]: string } => (typeof o[key] === 'string' ? { [key]: o[key] } : {});
const number = (o: Record<string, unknown>, key: string): { [k: string]: number } => (typeof o[key] === 'number' ? { [key]: o[key] } : {});

/** The objects of list `key` of `edits`, or the problem; absent is none. */
function objectsOf(edits: Record<string, unknown>, key: string, where: string): Record<string, unknown>[] | string {
  const list = edits[key];
  if (absent(list)) return [];
  return Array.isArray(list) && list.every(isRecord) ? list : `${where}.${key} is not a list of objects`;
}

/** A spec's or a device's `containerEdits` checked and built, or the problem with them. */
function editsOf(value: unknown, where: string): ContainerEdits | string {
  if (absent(value)) return {};
  if (!isRecord(value)) return `${where} is not an object`;
  const edits: ContainerEdits = {};
  if (!absent(value.env)) {
    if (!isStringList(value.env)) return `${where}.env is not a list of strings`;
    const bad = value.env.find((e) => e.indexOf('=') <= 0);
    if (bad !== undefined) return `${where}.env: ${JSON.stringify(bad)} is not NAME=value`;
    edits.env = [...value.env];
  }
  const nodes = objectsOf(value, 'deviceNodes', where);
  if (typeof nodes === 'string') return nodes;
  const mounts = objectsOf(value, 'mounts', where);
  if (typeof mounts === 'string') return mounts;
  const hooks = objectsOf(value, 'hooks', where);
  if (typeof hooks === 'string') return hooks;
  const deviceNodes: CdiDeviceNode[] = [];
  for (const d of nodes) {
    if (typeof d.path !== 'string') return `${where}.deviceNodes: a node without a path`;
    deviceNodes.push({ path: d.path, ...text(d, 'hostPath'), ...text(d, 'type'), ...number(d, 'major'), ...number(d, 'minor'), ...text(d, 'permissions') });
  }
  const cdiMounts: CdiMount[] = [];
  for (const x of mounts) {
    if (typeof x.hostPath !== 'string' || typeof x.containerPath !== 'string') return `${where}.mounts: a mount without hostPath or containerPath`;
    cdiMounts.push({ hostPath: x.hostPath, containerPath: x.containerPath, ...text(x, 'type'), ...(isStringList(x.options) ? { options: [...x.options] } : {}) });
  }
  const cdiHooks: CdiHook[] = [];
  for (const x of hooks) {
    if (typeof x.hookName !== 'string' || typeof x.path !== 'string') return `${where}.hooks: a hook without hookName or path`;
    cdiHooks.push({ hookName: x.hookName, path: x.path });
  }
  if (deviceNodes.length > 0) edits.deviceNodes = deviceNodes;
  if (cdiMounts.length > 0) edits.mounts = cdiMounts;
  if (cdiHooks.length > 0) edits.hooks = cdiHooks;
  if (!absent(value.additionalGIDs)) {
    if (!Array.isArray(value.additionalGIDs) || !value.additionalGIDs.every((g) => Number.isInteger(g))) return `${where}.additionalGIDs is not a list of integers`;
    edits.additionalGids = value.additionalGIDs.filter((g): g is number => typeof g === 'number');
  }
  return edits;
}

const isEmptyEdits = (e: ContainerEdits) =>
  [e.env, e.deviceNodes, e.mounts, e.hooks, e.additionalGids].every((list) => (list ?? []).length === 0);

/** A decoded spec file checked against the specification and built, or what is wrong with it. */
export function validateCdiSpec(value: unknown): CdiSpec | string {
  if (!isRecord(value)) return 'not an object';
  if (typeof value.cdiVersion !== 'string' || value.cdiVersion === '') return 'no cdiVersion';
  if (typeof value.kind !== 'string') return 'no kind';
  const kind = parseKind(value.kind);
  if (typeof kind === 'string') return kind;
  const specEdits = editsOf(value.containerEdits, 'containerEdits');
  if (typeof specEdits === 'string') return specEdits;
  if (!Array.isArray(value.devices) || value.devices.length === 0) return 'no devices';
  const devices: CdiSpec['devices'] = [];
  for (const [i, d] of (value.devices as unknown[]).entries()) {
    if (!isRecord(d) || typeof d.name !== 'string') return `devices[${i}] has no name`;
    const problem = deviceNameProblem(d.name);
    if (problem) return `devices[${i}]: ${problem}`;
    if (devices.some((known) => known.name === d.name)) return `devices[${i}]: device ${JSON.stringify(d.name)} is defined twice`;
    const edits = editsOf(d.containerEdits, `devices[${i}].containerEdits`);
    if (typeof edits === 'string') return edits;
    if (isEmptyEdits(edits)) return `devices[${i}]: device ${JSON.stringify(d.name)} has no edits`;
    devices.push({ name: d.name, containerEdits: edits });
  }
  return { cdiVersion: value.cdiVersion, kind: value.kind, devices, ...(isEmptyEdits(specEdits) ? {} : { containerEdits: specEdits }) };
}
