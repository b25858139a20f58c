/**
 * Bundles the built binary into dist/bundle/ (part of `npm run build`, after tsc). Start-up time is
 * mostly module loading, and Node's ESM loader pays per file (resolve, stat, open, read, link): the
 * daemon loads hundreds of our modules before healthz answers, a large share of its start
 * (docs/FINDINGS.md). One file per lazy boundary
 * keeps the dynamic imports lazy: rolldown splits at each `import()`, so a server's code still
 * loads only when that server starts.
 *
 * What stays outside: node_modules (resolved at run time as before; pino's worker and grpc's
 * proto files need their own paths) and node: builtins. The files found beside a module at run time
 * are entries of their own, named as tsc names them, so `new URL('./x.js', import.meta.url)` finds
 * them beside the chunk that asks: the embedded runtime's shim and the two worker scripts.
 *
 * The machines: the journal header names their definitions by a hash of their functions' source
 * text (src/bin/machines.ts). The bundler reprints that text (indentation, quotes, numerals), so
 * the bundle would name the very same definitions differently from the tsc build, and replay of a
 * log from one would be refused by the other. The hash is therefore taken here, from tsc's output,
 * and given to the bundle; the check below makes sure the bundle's machines are that build's:
 * the same machines, states, transitions and implementation names, function for function.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
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
  // Not run by anything: the bundle's own machine registry, for the check below.
  machines: join(SRC, 'machines/index.js'),
};

const isPackageOrBuiltin = (id: string) => !id.startsWith('.') && !id.startsWith('/');

const sha256 = machinesSha256();
rmSync(OUT, { recursive: true, force: true });
await build({
  input: ENTRIES,
  platform: 'node',
  external: isPackageOrBuiltin,
  transform: { define: { [MACHINES_SHA256_GLOBAL]: JSON.stringify(sha256) } },
  // An actor reaches an adapter through import() (the layers' rule, eslint's no-restricted-imports)
  // even where the daemon has loaded that adapter already; rolldown's note on each is no news.
  onLog: (level, log, report) => {
    if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') report(level, log);
  },
  // V8 keeps every loaded module's source text for the life of the process, two bytes a character
  // once one character is beyond Latin-1 (an arrow in a comment will do): without comments and with
  // string literals escaped to ASCII, the daemon's sources are one byte a character and shorter.
  output: {
    dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: true,
    comments: false, minify: { compress: false, mangle: false, codegen: { removeWhitespace: false, asciiOnly: true } },
  },
});

// The same machines as tsc's build, whatever the printing: compare their shapes.
const bundled = (await import(pathToFileURL(join(OUT, 'machines.js')).href)) as { MACHINES: typeof MACHINES };
const [ours, theirs] = [machinesShape(), machinesShape(bundled.MACHINES)];
if (ours !== theirs) {
  throw new Error('bundle-daemon: the bundle\'s machines differ in shape from tsc\'s build; the hash it was given would not name them');
}
// And the binary runs: it prints its version without loading the daemon.
const version = spawnSync(process.execPath, [join(OUT, 'kubelet.js'), '--version'], { encoding: 'utf8' });
if (version.status !== 0) throw new Error(`bundle-daemon: dist/bundle/kubelet.js --version failed:\n${version.stderr}`);
process.stdout.write(`bundle-daemon: dist/bundle/ (${version.stdout.trim()}; machines ${sha256.slice(0, 12)})\n`);
