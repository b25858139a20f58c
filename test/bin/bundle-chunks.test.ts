/**
 * The bundle keeps each server's packages in the chunks that server loads: the kubelet server
 * (node:http / node:https) must not bring fastify, which only the debug server uses. Read from
 * dist/bundle's source maps (which sources each chunk holds) and the chunks' static imports (what
 * loading one loads with it); dynamic imports stay lazy and are not followed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BUNDLE = 'dist/bundle';

const chunks = readdirSync(BUNDLE).filter((f) => f.endsWith('.js'));
/** What a chunk was bundled from; none for the bundler's own runtime, which has no map. */
const sourcesOf = (chunk: string): string[] => {
  const map = join(BUNDLE, `${chunk}.map`);
  return existsSync(map) ? (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources : [];
};
const staticImports = (chunk: string): string[] =>
  [...readFileSync(join(BUNDLE, chunk), 'latin1').matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1]!);

/** The chunk holding `source`, and every chunk loading it loads statically. */
function loadedWith(source: string): string[] {
  const first = chunks.find((c) => sourcesOf(c).some((s) => s.endsWith(source)));
  if (!first) throw new Error(`no chunk of ${BUNDLE} holds ${source}`);
  const seen = new Set([first]);
  for (const chunk of seen) for (const next of staticImports(chunk)) seen.add(next);
  return [...seen];
}

const fastifyIn = (chunk: string) => sourcesOf(chunk).some((s) => s.includes('node_modules/fastify/'));

describe('the bundle\'s chunks', () => {
  it('load no fastify with the kubelet server; the debug server\'s do', () => {
    expect(loadedWith('src/adapters/http/kubelet-server/server.js').filter(fastifyIn)).toEqual([]);
    expect(loadedWith('src/adapters/debug-server/server.js').filter(fastifyIn)).toHaveLength(1);
  });
});
