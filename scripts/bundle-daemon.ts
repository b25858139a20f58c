/**
 * Bundles the built binary into dist/bundle/ (part of `npm run build`, after tsc). Start-up time is
 * mostly module loading, and Node's ESM loader pays per file (resolve, stat, open, read, link): the
 * daemon loads hundreds of our modules before healthz answers, a large share of its start
 * (docs/FINDINGS.md). One file per lazy boundary
 * keeps the dynamic imports lazy: rolldown splits at each `import()`, so a server's code still
 * loads only when that server starts.
 *
 * The pure-JS packages the daemon loads (xstate, yaml, pino, fastify, ws, grpc-js, protobufjs…)
 * are bundled too, and everything is minified: V8 keeps every loaded module's source text for the
 * life of the process, so fewer and shorter sources are memory an idle node does not hold. What
 * stays outside (KEEP_EXTERNAL, resolved from node_modules at run time) is what needs files by its
 * own path or is rarely loaded and large. Code the bundled packages reach by path only on paths
 * the daemon does not take (pino's transports' worker, grpc's channelz and ORCA protos) would not
 * find its files from dist/bundle. The files found beside a module at run time are entries of their
 * own, named as tsc names them, so `new URL('./x.js', import.meta.url)` finds them beside the chunk
 * that asks: the embedded runtime's shim and the worker scripts.
 *
 * The machines: the journal header names their definitions by a hash of their functions' source
 * text (src/bin/machines.ts). The bundler reprints that text (indentation, quotes, numerals), so
 * the bundle would name the very same definitions differently from the tsc build, and replay of a
 * log from one would be refused by the other. The hash is therefore taken here, from tsc's output,
 * and given to the bundle; the check below makes sure the bundle's machines are that build's:
 * the same machines, states, transitions and implementation names, function for function.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { MACHINES_SHA256_GLOBAL, machinesShape, machinesSha256 } from '../src/bin/machines.js';
import type { MACHINES } from '../src/machines/index.js';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(DIST, 'bundle');
const SRC = join(DIST, 'src');

/** Entry name (the file name in dist/bundle/) → the tsc-built module. */
const ENTRIES: Record<string, string> = {
  kubelet: join(SRC, 'bin/kubelet.js'),
  // Loaded by path at run time, beside the module that asks for them.
  shim: join(SRC, 'adapters/embedded-runtime/shim/shim.js'),
  'decode-manifest-worker': join(SRC, 'adapters/pod-sources/decode-manifest-worker.js'),
  'layout-worker': join(SRC, 'adapters/visualizer/layout-worker.js'),
  'explain-worker': join(SRC, 'adapters/debug-server/explain-worker.js'),
  'cdi-spec-parse-worker': join(SRC, 'adapters/fs/cdi-spec-parse-worker.js'),
  // Not run by anything: the bundle's own machine registry, for the check below.
  machines: join(SRC, 'machines/index.js'),
};

/**
 * Packages left to node_modules: native addons (node-pty; ws's optional bufferutil and
 * utf-8-validate), typescript (the shim's compile from source, in a checkout only), the API client
 * and the layout engine (large, loaded on demand: cluster start-up's clients, the visualizer's
 * worker), and light-my-request (fastify requires it only for inject(), which the daemon never calls).
 */
const KEEP_EXTERNAL = ['node-pty', 'bufferutil', 'utf-8-validate', 'typescript', '@kubernetes/client-node', 'elkjs', 'light-my-request'];
const isExternal = (id: string) => id.startsWith('node:') || KEEP_EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`));
const KEEP_NAMES = { function: true, class: true };

const sha256 = machinesSha256();
rmSync(OUT, { recursive: true, force: true });
await build({
  input: ENTRIES,
  platform: 'node',
  external: isExternal,
  transform: { define: { [MACHINES_SHA256_GLOBAL]: JSON.stringify(sha256) } },
  // An actor reaches an adapter through import() (the layers' rule, eslint's no-restricted-imports)
  // even where the daemon has loaded that adapter already; rolldown's note on each is no news.
  onLog: (level, log, report) => {
    if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') report(level, log);
  },
  // V8 keeps a module's source at two bytes a character once one character is beyond Latin-1 (an
  // arrow in a comment will do): without comments and with string literals escaped to ASCII, the
  // sources are one byte a character. Functions and classes keep their names: pino logs an error's
  // class name as its type, the visualizer labels a guard by its function's name, and stack traces
  // stay readable without the source maps.
  output: {
    dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: true,
    comments: false,
    minify: { compress: { keepNames: KEEP_NAMES }, mangle: { keepNames: KEEP_NAMES }, codegen: { removeWhitespace: true, asciiOnly: true } },
  },
});

// The same machines as tsc's build, whatever the printing: compare their shapes.
const bundled = (await import(pathToFileURL(join(OUT, 'machines.js')).href)) as { MACHINES: typeof MACHINES };
const [ours, theirs] = [machinesShape(), machinesShape(bundled.MACHINES)];
if (ours !== theirs) {
  throw new Error('bundle-daemon: the bundle\'s machines differ in shape from tsc\'s build; the hash it was given would not name them');
}
// The package's bin, run by its path as a node agent's unit runs it: its shebang (kept from
// src/bin/kubelet.ts) and its exec bit, which rolldown does not set.
const BIN = join(OUT, 'kubelet.js');
if (!readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env ')) throw new Error('bundle-daemon: dist/bundle/kubelet.js lost its shebang line');
chmodSync(BIN, 0o755);
// And the binary runs: it prints its version without loading the daemon.
const version = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
if (version.status !== 0) throw new Error(`bundle-daemon: dist/bundle/kubelet.js --version failed (${version.error?.message ?? `exit ${version.status}`}):\n${version.stderr}`);
process.stdout.write(`bundle-daemon: dist/bundle/ (${version.stdout.trim()}; machines ${sha256.slice(0, 12)})\n`);
