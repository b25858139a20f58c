// Layering and purity rules. Imports flow one way: domain ← machines ← actors ← bin, ports import
// only domain, and adapters implement ports over domain and ports (no machines, no actors), static
// or dynamic imports alike. Machines and domain are pure (no I/O, clock or randomness) so a run
// can be replayed from its log; actors reach the world only through ports (test/lint/layers.test.ts
// shows each rule refusing a violation).
import tseslint from 'typescript-eslint';

const nodeIo = ['node:fs', 'node:fs/promises', 'node:net', 'node:http', 'node:https', 'node:child_process',
  'node:dgram', 'node:os', 'node:worker_threads', 'fs', 'net', 'http', 'child_process', 'os'];
// Actors may still use the pure parts of Node (path, util, crypto hashes): only the I/O they must
// take from a port is refused.
const actorIo = ['node:fs', 'node:fs/promises', 'node:http', 'node:https', 'node:os', 'fs', 'fs/promises', 'http', 'https', 'os'];
// Hashing is pure; drawing random bytes or ids is not.
const randomCrypto = ['node:crypto', 'crypto'].map((name) => ({
  name, importNames: ['randomUUID', 'randomBytes', 'randomInt', 'randomFillSync', 'randomFill'], message: 'no randomness here: take it from the Random port',
}));
const refused = (paths, message) => paths.map((name) => ({ name, message }));
const refusal = (name) => `imports flow one way: this layer may not import ${name}/`;
const layer = (name) => ({ group: [`**/${name}/**`, `../${name}/*`, `../../${name}/*`], message: refusal(name) });
// no-restricted-imports sees only static imports and re-exports: a dynamic import() (also a
// type-only `import('…')`) of a layer above is refused here, so a lazy load cannot cross a layer.
const dynamicImportsOf = (names) => names.flatMap((name) => {
  const path = `/(^|\\/)${name}\\//`;
  const message = `${refusal(name)} (not by import() either: take it through a port, wired in src/bin)`;
  return [
    { selector: `:matches(ImportExpression, TSImportType)[source.value=${path}]`, message },
    { selector: `ImportExpression > TemplateLiteral > TemplateElement[value.raw=${path}]`, message },
  ];
});

// What each layer may not import. An adapter that needs what machines make (their graphs) is
// handed it by the composition root (src/bin).
const above = {
  domain: ['machines', 'actors', 'adapters', 'bin', 'ports'],
  ports: ['machines', 'actors', 'adapters', 'bin'],
  machines: ['actors', 'adapters', 'bin'],
  actors: ['adapters', 'bin'],
  adapters: ['machines', 'actors', 'bin'],
};

// What reads the clock or draws randomness, for the layers that must not.
const clockAndRandomness = (why, layersAbove) => ({
  'no-restricted-properties': ['error',
    { object: 'Date', property: 'now', message: `${why}: time comes from events or the injected clock` },
    { object: 'performance', property: 'now', message: `${why}: time comes from events or the injected clock` },
    { object: 'Math', property: 'random', message: `${why}: randomness comes from the Random port` },
    { object: 'crypto', property: 'randomUUID', message: `${why}: ids come from a recorded source` },
    { object: 'crypto', property: 'getRandomValues', message: `${why}: randomness comes from the Random port` }],
  // `new Date(x)` parses a given time; `new Date()` and `Date()` read the clock.
  'no-restricted-syntax': ['error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: `${why}: no clock reads (new Date() with no argument)` },
    { selector: "CallExpression[callee.name='Date']", message: `${why}: no clock reads (Date() is the time as text)` },
    ...dynamicImportsOf(layersAbove)],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.kubelet-ts/**', 'coverage/**', 'src/generated/**', 'bench-baseline/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...nodeIo, ...randomCrypto], patterns: above.domain.map(layer) }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'process', 'fetch'],
      ...clockAndRandomness('domain is pure', above.domain),
    },
  },
  {
    files: ['src/ports/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeIo, patterns: above.ports.map(layer) }],
      'no-restricted-syntax': ['error', ...dynamicImportsOf(above.ports)],
    },
  },
  {
    files: ['src/machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...nodeIo, ...randomCrypto], patterns: above.machines.map(layer) }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'process', 'fetch'],
      ...clockAndRandomness('machines are pure', above.machines),
      // Stricter than domain: a machine builds no Date at all (times travel as numbers and strings).
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'machines are pure: no clock reads' },
        { selector: "CallExpression[callee.name='Date']", message: 'machines are pure: no clock reads' },
        ...dynamicImportsOf(above.machines)],
    },
  },
  {
    files: ['src/actors/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [...refused(actorIo, 'actors do I/O through a port (src/ports), implemented in src/adapters'), ...randomCrypto],
        patterns: above.actors.map(layer),
      }],
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: 'actors take timers from the injected Clock' },
        { name: 'setInterval', message: 'actors take timers from the injected Clock' },
        { name: 'fetch', message: 'actors do I/O through a port' }],
      ...clockAndRandomness('actors take time and randomness from ports', above.actors),
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: above.adapters.map(layer) }],
      'no-restricted-syntax': ['error', ...dynamicImportsOf(above.adapters)],
    },
  },
);
