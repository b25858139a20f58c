/**
 * Where a daemon's CPU went in a window of a `--cpu-prof` profile, by kind of work:
 *
 *   node dist/scripts/cpu-profile-categories.js PROFILE.cpuprofile [FROM_US TO_US] ... [--top N] [--within REGEX]
 *
 * FROM_US/TO_US are on the monotonic clock (the benches print a burst's span so); without them the
 * whole profile. Each sample's frames are mapped through the bundle's source maps to our sources,
 * then the sample goes to the first category that matches walking from the leaf up (so JSON.stringify
 * called by the journal counts as the journal's serialisation, and a leaf in node's own code counts for
 * the first of our modules above it). Prints ms per category, the top self functions, and for the
 * largest categories who called into them. The maps are read from beside the bundle the profile
 * names: read a profile before that bundle is rebuilt (or profile a copy of it), or its frames are
 * mapped through another build's maps. `--within REGEX` adds, for the categories whose name matches,
 * their top self functions and each of those under the frame that put it in the category. A profile's samples also count time the main thread was
 * descheduled: on a busy machine compare shares of one run's profiles, not milliseconds across runs.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; parent?: number; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** A category and whether a frame's original source (or, for builtins, its name) belongs to it; first match wins. */
const RULES: [string, (src: string, fn: string) => boolean][] = [
  ['idle', (src, fn) => src === '' && fn === '(idle)'],
  ['V8: garbage collector', (src, fn) => src === '' && fn === '(garbage collector)'],
  ['V8: program (compile, runtime)', (src, fn) => src === '' && fn === '(program)'],
  ['journal serialisation', (src) => /src\/(domain|adapters|actors)\/journal|journal-file|snapshot-refs|redact/.test(src)],
  ['status computation and patches', (src) => /status-manager|api-pods|pod-status|generate-status|status-patch|\/status\//.test(src)],
  ['volume set-up', (src) => /volume/.test(src)],
  ['log links / logs', (src) => /src\/(actors|adapters)\/logs|log-link|container-log/.test(src)],
  ['credentials', (src) => /credential|keyring/.test(src)],
  ['pino logging', (src) => /node_modules\/(pino|sonic-boom|thread-stream)|src\/log\.ts/.test(src)],
  ['yaml', (src) => /node_modules\/yaml/.test(src)],
  ['protobuf (encode, decode)', (src) => /node_modules\/(@grpc\/proto-loader|protobufjs|@protobufjs)|src\/generated/.test(src)],
  ['grpc-js (calls)', (src) => /node_modules\/@grpc\/grpc-js/.test(src)],
  ['CRI client (ours)', (src) => /cri-grpc|proto-/.test(src)],
  ['API client (http, watch)', (src) => /src\/adapters\/apiserver|watch-stream/.test(src)],
  ['XState (per-event work)', (src) => /node_modules\/xstate/.test(src)],
  ['PLEG / relist', (src) => /pleg/.test(src)],
  ['pod workers and phases', (src) => /pod-worker|phases|sync-loop|runtime-manager/.test(src)],
  ['pod config / sources', (src) => /pod-config|pod-sources/.test(src)],
  ['node status / lease', (src) => /src\/(actors|domain)\/node/.test(src)],
  ['machines (other)', (src) => /src\/machines/.test(src)],
  ['kubelet (other src)', (src) => /(^|\/)src\//.test(src)],
  ['node_modules (other)', (src) => /node_modules/.test(src)],
];
// Leaves in Node or V8 with no source of ours below them: named by what they are.
const LEAF_RULES: [string, (fn: string, url: string) => boolean][] = [
  ['JSON', (fn, url) => url === '' && /^(stringify|parse)$/.test(fn)],
  ['fs', (_fn, url) => /^node:(fs|internal\/fs)/.test(url)],
  ['http2 (node)', (_fn, url) => /^node:internal\/http2/.test(url)],
  ['net / tls / http (node)', (_fn, url) => /^node:(net|tls|_tls|http|https|_http|internal\/(http|tls|stream|streams|url))/.test(url)],
  ['child processes (node)', (_fn, url) => /^node:(child_process|internal\/child_process)/.test(url)],
];

const maps = new Map<string, SourceMap | null>();
function mapFor(url: string): SourceMap | null {
  if (!maps.has(url)) {
    let map: SourceMap | null = null;
    try {
      const file = fileURLToPath(url);
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return maps.get(url)!;
}

/** The frame's original source file and function, through the bundle's source map when it has one. */
function original(frame: CallFrame): { src: string; name: string } {
  // Only a bundle is mapped (dist/bundle, or a copy such as a bench's baseline): a package's own
  // maps would name its sources without the package.
  if (!frame.url.startsWith('file:') || frame.url.includes('/node_modules/')) return { src: frame.url.replace(/^file:\/\/.*?(node_modules\/)/, '$1'), name: frame.functionName };
  const entry = mapFor(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
  if (!entry?.originalSource) return { src: fileURLToPath(frame.url), name: frame.functionName };
  const src = entry.originalSource.replace(/^.*?(node_modules\/|src\/|bench\/)/, '$1');
  return { src: `${src}:${(entry.originalLine ?? 0) + 1}`, name: frame.functionName };
}

function main(): void {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
  const withinAt = args.indexOf('--within');
  const within = withinAt >= 0 ? new RegExp(args.splice(withinAt, 2)[1] ?? '') : undefined;
  const inputs: { file: string; fromUs: number; toUs: number }[] = [];
  for (let i = 0; i < args.length; i++) {
    const windowed = /^\d+$/.test(args[i + 1] ?? '') && /^\d+$/.test(args[i + 2] ?? '');
    inputs.push({ file: args[i]!, fromUs: windowed ? Number(args[i + 1]) : -Infinity, toUs: windowed ? Number(args[i + 2]) : Infinity });
    if (windowed) i += 2;
  }
  if (inputs.length === 0) throw new Error('usage: cpu-profile-categories PROFILE.cpuprofile [FROM_US TO_US] ... [--top N] [--within REGEX]');
  const sums: Sums = { perCategory: new Map(), perSelf: new Map(), callers: new Map(), withinSelf: new Map(), withinPair: new Map() };
  const { perCategory, perSelf, callers } = sums;
  let total = 0;
  for (const { file, fromUs, toUs } of inputs) total += addProfile(file, fromUs, toUs, sums, within);
  const line = (ms: number, what: string) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${what}`;
  process.stdout.write(`busy (not idle) ${total.toFixed(1)} ms in ${inputs.length} profile(s)\n\nby category:\n`);
  const sorted = [...perCategory].sort((a, b) => b[1] - a[1]);
  for (const [c, ms] of sorted) process.stdout.write(`${line(ms, c)}\n`);
  process.stdout.write(`\ntop ${top} self:\n`);
  for (const [f, ms] of [...perSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${line(ms, f)}\n`);
  for (const [c] of sorted.filter(([c]) => c !== 'idle').slice(0, 8)) {
    process.stdout.write(`\n${c}, by the frame that matched:\n`);
    for (const [f, ms] of [...callers.get(c)!].sort((a, b) => b[1] - a[1]).slice(0, 6)) process.stdout.write(`${line(ms, f)}\n`);
  }
  if (within === undefined) return;
  const sortedTop = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  process.stdout.write(`\nwithin ${String(within)}, top ${top} self:\n`);
  for (const [f, ms] of sortedTop(sums.withinSelf)) process.stdout.write(`${line(ms, f)}\n`);
  process.stdout.write(`\nwithin ${String(within)}, top ${top} self  <=  frame that matched:\n`);
  for (const [f, ms] of sortedTop(sums.withinPair)) process.stdout.write(`${line(ms, f)}\n`);
}

interface Sums {
  perCategory: Map<string, number>;
  perSelf: Map<string, number>;
  callers: Map<string, Map<string, number>>;
  /** Self time of the samples in the categories `--within` names, and the same by self and matched frame. */
  withinSelf: Map<string, number>;
  withinPair: Map<string, number>;
}

const add = (m: Map<string, number>, key: string, dt: number) => m.set(key, (m.get(key) ?? 0) + dt);

/** One profile's samples in [fromUs, toUs] added to the sums; returns its busy (not idle) ms. */
function addProfile(file: string, fromUs: number, toUs: number, sums: Sums, within: RegExp | undefined): number {
  const { perCategory, perSelf, callers } = sums;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) byId.get(c)!.parent = n.id;
  const origin = new Map<number, { src: string; name: string }>();
  const orig = (n: ProfileNode) => origin.get(n.id) ?? (origin.set(n.id, original(n.callFrame)), origin.get(n.id)!);
  const categoryCache = new Map<number, { category: string; caller: string }>();
  const categoryOf = (leaf: ProfileNode): { category: string; caller: string } => {
    const cached = categoryCache.get(leaf.id);
    if (cached) return cached;
    let result: { category: string; caller: string } | undefined;
    const leafRule = LEAF_RULES.find(([, test]) => test(leaf.callFrame.functionName, leaf.callFrame.url));
    for (let n: ProfileNode | undefined = leaf; n && !result; n = n.parent === undefined ? undefined : byId.get(n.parent)) {
      const o = orig(n);
      const rule = RULES.find(([, test]) => test(o.src, o.name));
      if (rule) result = { category: rule[0], caller: `${o.name || '(anonymous)'} ${o.src}` };
    }
    // Nothing of ours or of a package above it: the first of Node's own modules that names the work.
    for (let n: ProfileNode | undefined = leaf; n && !result; n = n.parent === undefined ? undefined : byId.get(n.parent)) {
      const rule = LEAF_RULES.find(([, test]) => test(n!.callFrame.functionName, n!.callFrame.url));
      if (rule) result = { category: rule[0], caller: `${n.callFrame.functionName} ${n.callFrame.url}` };
    }
    result ??= { category: 'other (node internals)', caller: `${leaf.callFrame.functionName} ${leaf.callFrame.url}` };
    // A builtin leaf under our code keeps both names: "JSON in journal serialisation".
    if (leafRule && !['idle', 'V8: garbage collector', 'V8: program (compile, runtime)'].includes(result.category)) result = { ...result, category: `${result.category} [${leafRule[0]}]` };
    categoryCache.set(leaf.id, result);
    return result;
  };
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample's time is the gap to the next one.
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (t < fromUs || t > toUs) continue;
    const leaf = byId.get(profile.samples[i]!)!;
    const { category, caller } = categoryOf(leaf);
    add(perCategory, category, dt);
    const o = orig(leaf);
    const self = `${o.name || '(anonymous)'} ${o.src}`;
    add(perSelf, self, dt);
    const byCaller = callers.get(category) ?? new Map<string, number>();
    add(byCaller, caller, dt);
    callers.set(category, byCaller);
    if (within?.test(category)) {
      add(sums.withinSelf, self, dt);
      add(sums.withinPair, `${self}  <=  ${caller}`, dt);
    }
    if (category !== 'idle') total += dt;
  }
  return total;
}

main();
