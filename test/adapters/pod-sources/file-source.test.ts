import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileSourceReader } from '../../../src/adapters/pod-sources/file-source.js';
import type { SourceRead } from '../../../src/ports/pod-sources.js';
import { seenByAnotherWatch } from '../../support/fs-watch-barrier.js';

const fixture = (name: string) => new URL(`../../fixtures/manifests/${name}`, import.meta.url);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-static-pods-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const readDir = (path = dir) => createFileSourceReader({ path, nodeName: 'node-1' }).read();

function snapshotOf(result: SourceRead) {
  if (result.kind !== 'snapshot') throw new Error(`expected a snapshot, got ${JSON.stringify(result)}`);
  return { names: result.pods.map((p) => p.metadata.name), rejected: result.rejected, pods: result.pods };
}

describe('createFileSourceReader', () => {
  it('reads every manifest in the directory, YAML and JSON, in name order', async () => {
    copyFileSync(fixture('worker.json'), join(dir, 'b-worker.json'));
    copyFileSync(fixture('web.yaml'), join(dir, 'a-web.yaml'));
    const { names, rejected, pods } = snapshotOf(await readDir());
    expect(names).toEqual(['web-node-1', 'worker-node-1']);
    expect(rejected).toEqual([]);
    expect(pods[0]?.metadata.annotations?.['kubernetes.io/config.source']).toBe('file');
  });

  it('reads files whatever their extension, and ignores names starting with a dot', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.manifest'));
    copyFileSync(fixture('worker.json'), join(dir, '.worker.json.swp'));
    writeFileSync(join(dir, '.hidden.yaml'), 'not: [valid');
    expect(snapshotOf(await readDir()).names).toEqual(['web-node-1']);
  });

  it('rejects a malformed file by name and keeps the good one beside it', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    copyFileSync(fixture('not-yaml.yaml'), join(dir, 'not-yaml.yaml'));
    copyFileSync(fixture('no-image.yaml'), join(dir, 'no-image.yaml'));
    writeFileSync(join(dir, 'empty.yaml'), '');
    const { names, rejected } = snapshotOf(await readDir());
    expect(names).toEqual(['web-node-1']);
    expect(rejected.map((r) => r.origin)).toEqual([join(dir, 'empty.yaml'), join(dir, 'no-image.yaml'), join(dir, 'not-yaml.yaml')]);
    expect(rejected[0]?.reason).toBe('empty manifest');
    expect(rejected[1]?.reason).toContain('spec.containers[0].image: Required value');
    expect(rejected[2]?.reason).toMatch(/^couldn't parse as YAML or JSON: .* at line \d+/);
  });

  it('rejects a file with two YAML documents', async () => {
    const web = '---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: i}]}\n';
    writeFileSync(join(dir, 'two.yaml'), web + web.replace('name: a', 'name: b'));
    writeFileSync(join(dir, 'one.yaml'), web + '---\n');
    const { names, rejected } = snapshotOf(await readDir());
    expect(names).toEqual(['a-node-1']);
    expect(rejected).toEqual([{ origin: join(dir, 'two.yaml'), reason: 'holds 2 YAML documents, expected one pod' }]);
  });

  it('keeps the first of two manifests giving the same pod and rejects the second', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, '10-web.yaml'));
    copyFileSync(fixture('web.yaml'), join(dir, '20-web-again.yaml'));
    const { pods, rejected } = snapshotOf(await readDir());
    expect(pods).toHaveLength(1);
    expect(rejected).toEqual([{ origin: join(dir, '20-web-again.yaml'), reason: expect.stringContaining(`already given by ${join(dir, '10-web.yaml')}`) }]);
  });

  it('does not recurse into subdirectories, and says so by their path (#14)', async () => {
    mkdirSync(join(dir, 'sub'));
    copyFileSync(fixture('web.yaml'), join(dir, 'sub', 'web.yaml'));
    expect(snapshotOf(await readDir())).toMatchObject({ names: [], rejected: [{ origin: join(dir, 'sub'), reason: 'is a directory, not recursing into it' }] });
  });

  it('gives a new UID when a manifest is edited, and the same UID when it is read again unchanged', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    const first = snapshotOf(await readDir()).pods[0]?.metadata.uid;
    expect(snapshotOf(await readDir()).pods[0]?.metadata.uid).toBe(first);
    writeFileSync(join(dir, 'web.yaml'), readFileSync(fixture('web.yaml'), 'utf8').replace('web:1.2', 'web:1.3'));
    expect(snapshotOf(await readDir()).pods[0]?.metadata.uid).not.toBe(first);
  });

  it('parses again only the files that changed since its last read, and forgets removed ones', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    copyFileSync(fixture('worker.json'), join(dir, 'worker.json'));
    writeFileSync(join(dir, 'bad.yaml'), 'not: [valid');
    const reader = createFileSourceReader({ path: dir, nodeName: 'node-1' });
    const first = snapshotOf(await reader.read());
    const second = snapshotOf(await reader.read());
    // Unchanged files give the very objects of the last read: nothing was parsed again.
    expect(second.pods[0]).toBe(first.pods[0]);
    expect(second.pods[1]).toBe(first.pods[1]);
    // A bad file is reported again on every read, as in Go.
    expect(second.rejected.map((r) => r.origin)).toEqual([join(dir, 'bad.yaml')]);
    writeFileSync(join(dir, 'web.yaml'), readFileSync(fixture('web.yaml'), 'utf8').replace('web:1.2', 'web:1.3'));
    rmSync(join(dir, 'worker.json'));
    const third = snapshotOf(await reader.read());
    expect(third.names).toEqual(['web-node-1']);
    expect(third.pods[0]).not.toBe(first.pods[0]);
    expect(third.pods[0]?.spec.containers[0]?.image).toMatch(/web:1\.3$/);
  });

  it('reads a single file path, and treats a bad single file as a failed read (the pod stays)', async () => {
    const file = join(dir, 'web.yaml');
    copyFileSync(fixture('web.yaml'), file);
    expect(snapshotOf(await readDir(file)).names).toEqual(['web-node-1']);
    copyFileSync(fixture('no-image.yaml'), file);
    const result = await readDir(file);
    expect(result).toEqual({ kind: 'failed', origin: file, reason: expect.stringContaining('image: Required value') });
  });

  it('gives an empty snapshot naming the path when it does not exist (the source still counts as seen)', async () => {
    const missing = join(dir, 'nope');
    expect(await readDir(missing)).toEqual({ kind: 'snapshot', pods: [], rejected: [{ origin: missing, reason: 'path does not exist, ignoring' }] });
  });

  it('ignores trailing slashes in the path (they would change every UID)', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    const plain = snapshotOf(await readDir()).pods[0]?.metadata.uid;
    expect(snapshotOf(await readDir(`${dir}//`)).pods[0]?.metadata.uid).toBe(plain);
  });

  it('reports changes in the directory through its watch, but not changes to dot files', async () => {
    const reader = createFileSourceReader({ path: dir, nodeName: 'node-1' });
    const events: string[] = [];
    const watch = reader.watch((e) => events.push(e));
    try {
      const seen = seenByAnotherWatch(dir, '.scratch');
      writeFileSync(join(dir, '.scratch'), 'x');
      await seen;
      expect(events).toEqual([]);
      copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
      await waitUntil(() => events.length > 0);
      expect(events[0]).toBe('changed');
    } finally {
      watch.close();
    }
  });

  it('reports its watch lost when the watched directory goes away, and when a missing one appears', async () => {
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests);
    const events: string[] = [];
    const onDir = createFileSourceReader({ path: manifests, nodeName: 'n' }).watch((e) => events.push(e));
    rmSync(manifests, { recursive: true });
    await waitUntil(() => events.includes('lost'));
    onDir.close();
    events.length = 0;
    const waiting = createFileSourceReader({ path: manifests, nodeName: 'n' }).watch((e) => events.push(e));
    try {
      mkdirSync(manifests);
      await waitUntil(() => events.includes('lost'));
    } finally {
      waiting.close();
    }
  });

  it('watches a single file through its directory, so a replacement by rename is seen', async () => {
    const file = join(dir, 'web.yaml');
    copyFileSync(fixture('web.yaml'), file);
    const reader = createFileSourceReader({ path: file, nodeName: 'node-1' });
    const events: string[] = [];
    const watch = reader.watch((e) => events.push(e));
    try {
      const seen = seenByAnotherWatch(dir, 'other.yaml');
      writeFileSync(join(dir, 'other.yaml'), 'x');
      await seen;
      expect(events).toEqual([]);
      copyFileSync(fixture('worker.json'), join(dir, 'web.yaml.tmp'));
      renameSync(join(dir, 'web.yaml.tmp'), file);
      await waitUntil(() => events.length > 0);
    } finally {
      watch.close();
    }
  });
});

const waitUntil = (check: () => boolean, timeoutMs = 3000) => vi.waitUntil(check, { timeout: timeoutMs, interval: 10 });

describe('createFileSourceReader with hostile files (#14)', () => {
  it.each([
    ['an unresolved alias', 'a: *x\n', /Unresolved alias/],
    ['an alias bomb', 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n', /alias count/],
  ])('rejects a file holding %s by its path and keeps reading the others', async (_what, text, reason) => {
    writeFileSync(join(dir, 'bad.yaml'), text);
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    const { names, rejected } = snapshotOf(await readDir());
    expect(names).toEqual(['web-node-1']);
    expect(rejected).toEqual([{ origin: join(dir, 'bad.yaml'), reason: expect.stringMatching(reason) }]);
  });
});

describe('createFileSourceReader with manifests Go refuses for their security settings', () => {
  const manifest = (name: string, spec: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: c, image: busybox}]\n${spec}`;

  it('rejects each by its path with Go\'s field error and keeps the good pod', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    writeFileSync(join(dir, 'typo.yaml'), manifest('typo', '  securityContext: {seccompProfile: {type: RuntimeDefualt}}\n'));
    writeFileSync(join(dir, 'no-profile.yaml'), manifest('no-profile', '  securityContext: {seccompProfile: {type: Localhost}}\n'));
    writeFileSync(join(dir, 'shadow.yaml'), manifest('shadow', '  securityContext: {seccompProfile: {type: Localhost, localhostProfile: ../../../../etc/shadow}}\n'));
    writeFileSync(join(dir, 'sysctl.yaml'), manifest('sysctl', '  securityContext: {sysctls: [{name: "net..ipv4.ip_forward", value: "1"}]}\n'));
    writeFileSync(join(dir, 'debug.yaml'), manifest('debug', '  ephemeralContainers: [{name: d, image: busybox}]\n'));
    const { names, rejected } = snapshotOf(await readDir());
    expect(names).toEqual(['web-node-1']);
    expect(rejected).toEqual([
      { origin: join(dir, 'debug.yaml'), reason: 'invalid pod: spec.ephemeralContainers: Forbidden: cannot be set on create' },
      { origin: join(dir, 'no-profile.yaml'), reason: 'invalid pod: spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost' },
      { origin: join(dir, 'shadow.yaml'), reason: 'invalid pod: spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../../../../etc/shadow": must not contain \'..\'' },
      { origin: join(dir, 'sysctl.yaml'), reason: expect.stringContaining('invalid pod: spec.securityContext.sysctls[0].name: Invalid value: "net..ipv4.ip_forward": must have at most 253 characters') },
      { origin: join(dir, 'typo.yaml'), reason: 'invalid pod: spec.securityContext.seccompProfile.type: Unsupported value: "RuntimeDefualt": supported values: "Localhost", "RuntimeDefault", "Unconfined"' },
    ]);
  });
});

describe('createFileSourceReader with entries that are not manifests (#14)', () => {
  it('rejects each by its path and reason, never reading a FIFO or a device, and keeps the good file', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    mkdirSync(join(dir, 'x.yaml'));
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    symlinkSync(join(dir, 'missing.yaml'), join(dir, 'dangling.yaml'));
    symlinkSync(join(dir, 'loop-b.yaml'), join(dir, 'loop-a.yaml'));
    symlinkSync(join(dir, 'loop-a.yaml'), join(dir, 'loop-b.yaml'));
    const { names, rejected } = snapshotOf(await readDir());
    expect(names).toEqual(['web-node-1']);
    expect(rejected).toEqual([
      { origin: join(dir, 'dangling.yaml'), reason: expect.stringMatching(/^can't get metadata: ENOENT/) },
      { origin: join(dir, 'fifo.yaml'), reason: 'is a FIFO, not a regular file' },
      { origin: join(dir, 'loop-a.yaml'), reason: expect.stringMatching(/^can't get metadata: ELOOP/) },
      { origin: join(dir, 'loop-b.yaml'), reason: expect.stringMatching(/^can't get metadata: ELOOP/) },
      { origin: join(dir, 'x.yaml'), reason: 'is a directory, not recursing into it' },
      { origin: join(dir, 'zero.yaml'), reason: 'is a character device, not a regular file' },
    ]);
  });
});

describe('createFileSourceReader with two manifests of one pod name (#14)', () => {
  it('keeps the pod read before and rejects the newcomer, even when the newcomer sorts first', async () => {
    const reader = createFileSourceReader({ path: dir, nodeName: 'node-1' });
    copyFileSync(fixture('web.yaml'), join(dir, 'z-web.yaml'));
    const before = snapshotOf(await reader.read());
    expect(before.names).toEqual(['web-node-1']);
    copyFileSync(fixture('web.yaml'), join(dir, 'a-web.yaml'));
    const after = snapshotOf(await reader.read());
    expect(after.pods.map((p) => p.metadata.uid)).toEqual(before.pods.map((p) => p.metadata.uid));
    expect(after.rejected).toEqual([{ origin: join(dir, 'a-web.yaml'), reason: expect.stringContaining(`already given by ${join(dir, 'z-web.yaml')}`) }]);
    rmSync(join(dir, 'z-web.yaml'));
    const last = snapshotOf(await reader.read());
    expect(last).toMatchObject({ names: ['web-node-1'], rejected: [] });
  });
});
