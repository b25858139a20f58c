import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.js') });
});

/** The rules that refuse `code` as if it were the file at `filePath` (relative to the repository). */
async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('eslint.config.js layer rules', () => {
  it.each([
    // machines: pure
    ['src/machines/x.machine.ts', 'export const t = Date.now();', 'no-restricted-properties'],
    ['src/machines/x.machine.ts', 'export const d = new Date(5);', 'no-restricted-syntax'],
    ['src/machines/x.machine.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };", 'no-restricted-imports'],
    ['src/machines/x.machine.ts', "import { createRuntimeHost } from '../adapters/host/runtime-host.js';\nexport { createRuntimeHost };", 'no-restricted-imports'],
    // domain: pure, and imports nothing above it
    ['src/domain/x.ts', "import { readFileSync } from 'node:fs';\nexport { readFileSync };", 'no-restricted-imports'],
    ['src/domain/x.ts', 'export const r = Math.random();', 'no-restricted-properties'],
    ['src/domain/x.ts', 'export const t = Date.now();', 'no-restricted-properties'],
    ['src/domain/x.ts', 'export const d = new Date();', 'no-restricted-syntax'],
    ['src/domain/x.ts', 'export const s = Date();', 'no-restricted-syntax'],
    ['src/domain/x.ts', 'setTimeout(() => {}, 1);', 'no-restricted-globals'],
    ['src/domain/x.ts', "import { randomUUID } from 'node:crypto';\nexport const id = randomUUID();", 'no-restricted-imports'],
    ['src/domain/x.ts', "import { podWorkerMachine } from '../machines/pod-worker.machine.js';\nexport { podWorkerMachine };", 'no-restricted-imports'],
    // actors: the world only through ports
    ['src/actors/x/y.ts', "import { readFile } from 'node:fs';\nexport { readFile };", 'no-restricted-imports'],
    ['src/actors/x/y.ts', "import { request } from 'node:http';\nexport { request };", 'no-restricted-imports'],
    ['src/actors/x/y.ts', "import { totalmem } from 'node:os';\nexport { totalmem };", 'no-restricted-imports'],
    ['src/actors/x/y.ts', 'setTimeout(() => {}, 1);', 'no-restricted-globals'],
    ['src/actors/x/y.ts', 'setInterval(() => {}, 1);', 'no-restricted-globals'],
    ['src/actors/x/y.ts', 'export const t = Date.now();', 'no-restricted-properties'],
    ['src/actors/x/y.ts', 'export const d = new Date();', 'no-restricted-syntax'],
    ['src/actors/x/y.ts', 'export const r = Math.random();', 'no-restricted-properties'],
    ['src/actors/x/y.ts', 'export const id = crypto.randomUUID();', 'no-restricted-properties'],
    ['src/actors/x/y.ts', "import { nodeHttpGet } from '../../adapters/http/http-get.js';\nexport { nodeHttpGet };", 'no-restricted-imports'],
    ['src/actors/x/y.ts', "export { PairStore } from '../../adapters/certificates/pair-store.js';", 'no-restricted-imports'],
    // a lazy load is an import all the same
    ['src/actors/x/y.ts', "export const load = () => import('../../adapters/pki/x509.js');", 'no-restricted-syntax'],
    ['src/actors/x/y.ts', "export const load = async () => (await Promise.all([import('../../adapters/certificates/pair-store.js')]))[0];", 'no-restricted-syntax'],
    ['src/actors/x/y.ts', 'export const load = () => import(`../../adapters/pki/x509.js`);', 'no-restricted-syntax'],
    ['src/actors/x/y.ts', "export type Store = import('../../adapters/certificates/pair-store.js').PairStore;", 'no-restricted-syntax'],
    ['src/actors/x/y.ts', "export const load = () => import('../../bin/daemon.js');", 'no-restricted-syntax'],
    // ports: interfaces over domain only
    ['src/ports/x.ts', "import type { RuntimeHost } from '../adapters/host/runtime-host.js';\nexport type { RuntimeHost };", 'no-restricted-imports'],
    ['src/ports/x.ts', "import type { HookDeps } from '../actors/runtime-manager/lifecycle-hooks.js';\nexport type { HookDeps };", 'no-restricted-imports'],
    // adapters: implement ports, never reach back into actors
    ['src/adapters/x/y.ts', "import type { HookDeps } from '../../actors/runtime-manager/lifecycle-hooks.js';\nexport type { HookDeps };", 'no-restricted-imports'],
    ['src/adapters/x/y.ts', "import { runDaemon } from '../../bin/daemon.js';\nexport { runDaemon };", 'no-restricted-imports'],
    // adapters take what machines make from the composition root
    ['src/adapters/x/y.ts', "import { machineGraphs } from '../../machines/index.js';\nexport { machineGraphs };", 'no-restricted-imports'],
    ['src/adapters/x/y.ts', "import type { CertificateRotation } from '../../machines/certificate-manager.machine.js';\nexport type { CertificateRotation };", 'no-restricted-imports'],
    ['src/adapters/x/y.ts', "export const load = () => import('../../machines/index.js');", 'no-restricted-syntax'],
    ['src/adapters/x/y.ts', "export const load = () => import('../../actors/phases/index.js');", 'no-restricted-syntax'],
    // the pure layers refuse a lazy load as well
    ['src/machines/x.machine.ts', "export const load = () => import('../actors/phases/index.js');", 'no-restricted-syntax'],
    ['src/domain/x.ts', "export const load = () => import('../machines/index.js');", 'no-restricted-syntax'],
    ['src/ports/x.ts', "export const load = () => import('../adapters/pki/x509.js');", 'no-restricted-syntax'],
  ])('refuses in %s: %s', async (filePath, code, rule) => {
    expect(await refusals(filePath, code)).toContain(rule);
  });

  it.each([
    // domain may parse a given time and hash (hashing is pure)
    ['src/domain/x.ts', "import { createHash } from 'node:crypto';\nexport const at = (s: string) => new Date(s).getTime();\nexport const h = createHash('sha256');"],
    // actors: time from the Clock port, pure Node modules allowed
    ['src/actors/x/y.ts', "import { join } from 'node:path';\nimport type { Clock } from '../../ports/clock.js';\nexport const later = (clock: Clock) => clock.setTimeout(() => join('a', 'b'), 5);\nexport const iso = (clock: Clock) => new Date(clock.now()).toISOString();"],
    // adapters may do I/O and import ports and domain
    // a lazy load within the layer or from the layers below is fine; bin loads adapters lazily
    ['src/adapters/x/y.ts', "export const load = () => import('../pki/x509.js');\nexport const ports = () => import('../../ports/clock.js');"],
    ['src/actors/x/y.ts', "export const load = () => import('../../domain/errors.js');\nexport const peer = () => import('../phases/index.js');"],
    ['src/bin/x.ts', "export const load = () => import('../adapters/certificates/renewal.js');\nexport const graphs = () => import('../machines/index.js');"],
    ['src/adapters/x/y.ts', "import { readFile } from 'node:fs/promises';\nimport type { Clock } from '../../ports/clock.js';\nexport const read = (_c: Clock) => readFile('/etc/hostname', 'utf8');\nexport const t = Date.now();"],
    ['src/machines/x.machine.ts', "import { setup } from 'xstate';\nimport type { Pod } from '../domain/pod/types.js';\nexport const m = setup({ types: { context: {} as { pod: Pod | null } } }).createMachine({ context: { pod: null } });"],
  ])('accepts clean code in %s', async (filePath, code) => {
    expect(await refusals(filePath, code)).toEqual([]);
  });
});
