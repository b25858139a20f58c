import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CDI_INLINE_PARSE_MAX_CHARS, parseCdiSpecText } from '../../../src/adapters/fs/cdi-spec-parse.js';
import { readCdiSpecs } from '../../../src/adapters/fs/cdi-spec-reader.js';
import { turnsDuring } from '../../support/event-loop-turns.js';

// The worker runs the built module next to the parser, so the parser is taken from dist (built
// before the tests run).
type Parse = typeof import('../../../src/adapters/fs/cdi-spec-parse.js');
const built = () => import(pathToFileURL(resolve('dist/src/adapters/fs/cdi-spec-parse.js')).href) as Promise<Parse>;

const device = (i: number) => ({ name: `dev${i}`, containerEdits: { env: [`GPU_${i}=on`] } });
/** A spec with `count` devices, as JSON or as YAML. */
function spec(count: number, yaml: boolean): string {
  const devices = Array.from({ length: count }, (_, i) => device(i));
  if (!yaml) return JSON.stringify({ cdiVersion: '0.6.0', kind: 'vendor.example.com/gpu', devices });
  return ['cdiVersion: "0.6.0"', 'kind: vendor.example.com/gpu', 'devices:', ...devices.map((d) => `  - name: ${d.name}\n    containerEdits:\n      env: ["${d.containerEdits.env[0]}"]`)].join('\n');
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('parseCdiSpecText', () => {
  it('reads a JSON spec and the same spec in YAML alike, and names what is wrong with a broken one', () => {
    const json = parseCdiSpecText(spec(2, false));
    expect(json).toEqual(parseCdiSpecText(spec(2, true)));
    expect('spec' in json && json.spec.devices.map((d) => d.name)).toEqual(['dev0', 'dev1']);
    expect(parseCdiSpecText('devices: [')).toMatchObject({ error: expect.any(String) });
    expect(parseCdiSpecText('{"cdiVersion": "0.6.0", "devices": []}')).toMatchObject({ error: expect.stringMatching(/kind/) });
  });
});

describe('parseCdiSpecOffThread', () => {
  it('parses a large YAML spec on a worker as inline, while the event loop keeps turning', async () => {
    const { parseCdiSpecOffThread } = await built();
    // About 70 characters a device: a spec a fifth over the inline limit.
    const text = spec(Math.ceil((CDI_INLINE_PARSE_MAX_CHARS * 1.2) / 70), true);
    expect(text.length).toBeGreaterThan(CDI_INLINE_PARSE_MAX_CHARS);
    const { result, turns } = await turnsDuring(() => parseCdiSpecOffThread(text));
    expect(result).toEqual(parseCdiSpecText(text));
    expect(turns).toBeGreaterThan(10);
  }, 60_000);

  it('names the file a spec came from beside what is wrong with it, and keeps the good ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kts-cdi-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'a.json'), spec(1, false));
    writeFileSync(join(dir, 'b.yaml'), 'devices: [');
    const { specs, problems } = await readCdiSpecs([dir]);
    expect(specs.map((s) => s.path)).toEqual([join(dir, 'a.json')]);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${join(dir, 'b.yaml')}: `))]);
  });
});
