/**
 * Writes docs/reference/effects.md: every effect a machine invokes by name (`src: 'syncPod'`), with
 * the file and line where the composition root's effects get it from, found by the TypeScript
 * checker through `createEffects`' return type and its spreads. A machine's effect name is then one
 * search away from its code. test/docs/effects-page.test.ts fails when the page differs.
 *
 *   node dist/scripts/effects-page.js > docs/reference/effects.md     (after `npm run build`)
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository: the nearest directory up with a tsconfig.json (scripts/ when run by vitest, dist/scripts/ when built). */
function repositoryRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'tsconfig.json')) && existsSync(join(dir, 'src'))) return dir;
  }
  throw new Error('no repository above scripts/effects-page');
}
const ROOT = repositoryRoot();
const EFFECTS_FILE = join(ROOT, 'src/bin/effects.ts');
const SYSTEM_FILE = join(ROOT, 'src/bin/system.ts');
const MACHINES_DIR = join(ROOT, 'src/machines');

/** A file and the function in it (the enclosing one, for a property): names, not lines, so the page changes only when the code moves. */
interface Place { file: string; name: string }
interface EffectRow { machineFile: string; effect: string; provided: Place; builtBy: Place | null }

function program(): ts.Program {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!config) throw new Error(`cannot read ${configPath}`);
  return ts.createProgram({ rootNames: [EFFECTS_FILE, SYSTEM_FILE, ...machineFiles()], options: { ...config.options, noEmit: true } });
}

const machineFiles = (): string[] => readdirSync(MACHINES_DIR).filter((f) => f.endsWith('.machine.ts')).sort().map((f) => join(MACHINES_DIR, f));

/** The string literals of an `as const` list's type, spreads resolved by the checker. */
function literalNames(checker: ts.TypeChecker, node: ts.Node): string[] {
  const type = checker.getTypeAtLocation(node);
  const elements = checker.isTupleType(type) ? checker.getTypeArguments(type as ts.TypeReference) : [];
  return elements.flatMap((t) => (t.isUnion() ? t.types : [t])).flatMap((t) => (t.isStringLiteral() ? [t.value] : []));
}

/** Each machine file's `*_EFFECTS` lists (the supervisor's lives in system.ts), as effect → machine file. */
function declaredEffects(checker: ts.TypeChecker, files: readonly ts.SourceFile[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of files) {
    ts.forEachChild(file, (node) => {
      if (!ts.isVariableStatement(node)) return;
      for (const decl of node.declarationList.declarations) {
        if (!ts.isIdentifier(decl.name) || !/^[A-Z_]+_EFFECTS$/.test(decl.name.text) || decl.name.text === 'SYSTEM_EFFECTS') continue;
        // The supervisor's list is made in system.ts, from the phases it drives.
        const machineFile = decl.name.text === 'SUPERVISOR_EFFECTS' ? 'src/machines/supervisor.machine.ts' : relative(ROOT, file.fileName);
        for (const effect of literalNames(checker, decl.name)) out.set(effect, machineFile);
      }
    });
  }
  return out;
}

/** The function a declaration sits in (or the declaration's own name, at a file's top level). */
function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return at.name.getText();
    if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at)) && ts.isVariableDeclaration(at.parent)) return at.parent.name.getText();
  }
  const own = ts.getNameOfDeclaration(node as ts.Declaration);
  return own ? own.getText() : '';
}

const placeOf = (node: ts.Node, name = enclosingName(node)): Place => ({ file: relative(ROOT, node.getSourceFile().fileName), name });

/** The project function a property's value is made by (`x: createX(...)`), if any: the next hop. */
function builder(checker: ts.TypeChecker, decl: ts.Declaration): Place | null {
  if (!ts.isPropertyAssignment(decl) || !ts.isCallExpression(decl.initializer)) return null;
  const callee = decl.initializer.expression;
  let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(callee) ? callee.name : callee);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const target = symbol?.declarations?.[0];
  if (!symbol || !target || target.getSourceFile().fileName.includes('/node_modules/')) return null;
  return placeOf(target, symbol.getName());
}

/** Where each property of `createEffects`' returned object is declared, and what builds it. */
function implementations(checker: ts.TypeChecker, effectsFile: ts.SourceFile): Map<string, Pick<EffectRow, 'provided' | 'builtBy'>> {
  let fn: ts.FunctionDeclaration | undefined;
  ts.forEachChild(effectsFile, (node) => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === 'createEffects') fn = node;
  });
  if (!fn?.body) throw new Error('src/bin/effects.ts has no createEffects');
  const returned = fn.body.statements.find(ts.isReturnStatement)?.expression;
  if (!returned) throw new Error('createEffects returns nothing');
  const out = new Map<string, Pick<EffectRow, 'provided' | 'builtBy'>>();
  for (const property of checker.getTypeAtLocation(returned).getProperties()) {
    const decl = property.valueDeclaration ?? property.declarations?.[0];
    if (decl) out.set(property.getName(), { provided: placeOf(decl), builtBy: builder(checker, decl) });
  }
  return out;
}

export function effectRows(): EffectRow[] {
  const prog = program();
  const checker = prog.getTypeChecker();
  const sources = [SYSTEM_FILE, ...machineFiles()].map((f) => prog.getSourceFile(f)).filter((f): f is ts.SourceFile => f !== undefined);
  const declared = declaredEffects(checker, sources);
  const effectsSource = prog.getSourceFile(EFFECTS_FILE);
  if (!effectsSource) throw new Error(`${EFFECTS_FILE} is not in the program`);
  const found = implementations(checker, effectsSource);
  const rows: EffectRow[] = [];
  for (const [effect, machineFile] of declared) {
    const at = found.get(effect);
    if (!at) throw new Error(`effect ${effect} of ${machineFile} has no implementation in createEffects`);
    rows.push({ machineFile, effect, ...at });
  }
  return rows.sort((a, b) => a.machineFile.localeCompare(b.machineFile) || a.effect.localeCompare(b.effect));
}

export function effectsPage(rows: readonly EffectRow[] = effectRows()): string {
  const link = (file: string) => `[\`${file}\`](../../${file})`;
  const place = (p: Place | null) => (p ? `${p.name ? `\`${p.name}\` in ` : ''}${link(p.file)}` : '—');
  return [
    '# Effects: from a machine\'s `src` to its code',
    '',
    '<!-- generated by scripts/effects-page.ts from src/bin/effects.ts and each machine\'s *_EFFECTS: do not edit by hand -->',
    '',
    'A machine invokes or spawns its effects by name (`invoke: { src: \'syncPod\' }`) and lists them in its',
    '`*_EFFECTS` constant; the composition root (`createEffects` in [`src/bin/effects.ts`](../../src/bin/effects.ts))',
    'provides each, and replay makes each inert. For every name, this table gives the function whose returned',
    'object defines the actor logic the daemon runs (as the TypeScript checker resolves `createEffects`\' return',
    'value through its spreads) and, when that property calls one of ours to build the logic, that function.',
    '',
    '| machine | effect | defined in | built by |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${link(r.machineFile)} | \`${r.effect}\` | ${place(r.provided)} | ${place(r.builtBy)} |`),
    '',
  ].join('\n');
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) process.stdout.write(effectsPage());
