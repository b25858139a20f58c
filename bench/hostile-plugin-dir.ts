/**
 * A tree moved into the plugin registry at once (built beside it before the window, then renamed
 * in): directories 40 deep, 2,000 side by side, one of 20,000 names, and links to `.`, `..` and the
 * registry itself. The watcher walks what is within its bounds (plugin-watch-bounds.ts) and logs the
 * first refusal of each kind. The tree is removed at the end, inside the window.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linesWith, sleep, type HostileCase, type HostileKubelet } from './hostile-case.js';

const DEPTH = 40;
const SIDE_BY_SIDE = 2_000;
const NAMES_IN_ONE = 20_000;

const REFUSALS = [
  'Plugin watcher: directory deeper than the watch bound',
  'Plugin watcher: too many directories watched',
  'Plugin watcher: directory has more entries than the bound',
  'Plugin watcher: too many sockets tracked',
];

function build(stage: string, registry: string): void {
  let deep = join(stage, 'deep');
  for (let i = 0; i < DEPTH; i++) deep = join(deep, 'd');
  mkdirSync(deep, { recursive: true });
  for (let i = 0; i < SIDE_BY_SIDE; i++) mkdirSync(join(stage, 'wide', `d${i}`), { recursive: true });
  mkdirSync(join(stage, 'crowded'));
  for (let i = 0; i < NAMES_IN_ONE; i++) writeFileSync(join(stage, 'crowded', `f${i}`), '');
  symlinkSync('.', join(stage, 'self'));
  symlinkSync('..', join(stage, 'up'));
  symlinkSync(registry, join(stage, 'registry'));
}

/** Beside the registry, on the same file system, so that moving it in is one rename. */
const stageOf = (k: HostileKubelet) => join(k.root, 'hostile-stage');

export const hostilePluginDir: HostileCase = {
  name: `plugin registry: a tree ${DEPTH} deep, ${SIDE_BY_SIDE.toLocaleString('en')} directories, ${NAMES_IN_ONE.toLocaleString('en')} names, link loops`,
  prepare(k) {
    rmSync(stageOf(k), { recursive: true, force: true });
    build(stageOf(k), k.pluginsDir);
  },
  async attack(k, seconds) {
    const stage = stageOf(k);
    const tree = join(k.pluginsDir, 'hostile-tree');
    const log = k.logFromNow();
    try {
      renameSync(stage, tree);
      await sleep(seconds * 1000);
    } finally {
      rmSync(tree, { recursive: true, force: true });
      rmSync(stage, { recursive: true, force: true });
    }
    // The removal's events are handled inside the window too.
    await sleep(1000);
    const lines = log();
    const refused = REFUSALS.filter((msg) => linesWith(lines, msg).length > 0);
    return { outcome: refused.length > 0 ? 'bounded' : 'answered', detail: `${refused.length} kinds of refusal logged` };
  },
};
