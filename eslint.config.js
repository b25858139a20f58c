// Layering and purity rules. Imports flow one way: domain ← machines ← actors ← adapters ← bin,
// and ports import only domain. Machines must stay pure so a run can be replayed from its log.
import tseslint from 'typescript-eslint';

const nodeIo = ['node:fs', 'node:fs/promises', 'node:net', 'node:http', 'node:https', 'node:child_process',
  'node:dgram', 'node:os', 'node:worker_threads', 'fs', 'net', 'http', 'child_process', 'os'];
const layer = (name) => ({ group: [`**/${name}/**`, `../${name}/*`, `../../${name}/*`], message: `imports flow one way: this layer may not import ${name}/` });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.kubelet-ts/**', 'coverage/**', 'src/generated/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeIo, patterns: ['machines', 'actors', 'adapters', 'bin', 'ports'].map(layer) }],
    },
  },
  {
    files: ['src/ports/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeIo, patterns: ['machines', 'actors', 'adapters', 'bin'].map(layer) }],
    },
  },
  {
    files: ['src/machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeIo, patterns: ['actors', 'adapters', 'bin'].map(layer) }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'performance', 'process', 'fetch'],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'machines are pure: time comes from events or the injected clock' },
        { object: 'Math', property: 'random', message: 'machines are pure: no randomness' },
        { object: 'crypto', property: 'randomUUID', message: 'machines are pure: ids come from a recorded source' }],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'machines are pure: no clock reads' }],
    },
  },
  {
    files: ['src/actors/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['adapters', 'bin'].map(layer) }],
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['bin'].map(layer) }],
    },
  },
);
