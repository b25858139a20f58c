import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { withContainerLogLinks } from '../../../src/actors/logs/container-log-links.js';
import { createContainerLogFiles } from '../../../src/adapters/fs/container-log-files.js';
import { LogRuntime } from './log-runtime.js';

const logger = pino({ level: 'silent' });

function setup() {
  const rt = new LogRuntime();
  const linkDir = join(rt.dir, 'links');
  mkdirSync(linkDir);
  const cri = withContainerLogLinks(rt.client(), { files: createContainerLogFiles(logger), linkDir }, logger);
  return { rt, cri, linkDir };
}

describe('withContainerLogLinks', () => {
  it('links <pod>_<ns>_<container>-<id>.log to the log once the container started', async () => {
    const { rt, cri, linkDir } = setup();
    const c = rt.add('abc', 10);
    await cri.runtime.startContainer('abc');
    const link = join(linkDir, 'pod-abc_ns_app-abc.log');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(c.log);
    expect(rt.calls.indexOf('startContainer abc')).toBeLessThan(rt.calls.indexOf('containerStatus abc'));
  });

  it('links a container it saw created from that CreateContainer\'s config, asking for no status', async () => {
    const { rt, cri, linkDir } = setup();
    const labels = { 'io.kubernetes.pod.name': 'web', 'io.kubernetes.pod.namespace': 'ns', 'io.kubernetes.container.name': 'app' };
    // Only what the links read of a config and a sandbox config.
    const config: Parameters<typeof cri.runtime.createContainer>[1] = { metadata: { name: 'c1', attempt: 0 }, image: { image: 'busybox' }, labels, log_path: 'c1.log' };
    const sandbox = { log_directory: rt.dir } as Parameters<typeof cri.runtime.createContainer>[2];
    const id = await cri.runtime.createContainer('sb', config, sandbox);
    await cri.runtime.startContainer(id);
    expect(readlinkSync(join(linkDir, 'web_ns_app-c1.log'))).toBe(join(rt.dir, 'c1.log'));
    expect(rt.calls).toEqual(['createContainer c1', 'startContainer c1']);
  });

  it('makes no link to a log that does not exist, and a start whose link fails still succeeds', async () => {
    const { rt, cri, linkDir } = setup();
    rmSync(rt.add('nolog', 0).log);
    await cri.runtime.startContainer('nolog');
    expect(readdirSync(linkDir)).toEqual([]);
    rt.add('twice', 1);
    await cri.runtime.startContainer('twice');
    await expect(cri.runtime.startContainer('twice')).resolves.toBeUndefined();
  });

  it('removes the log, its rotated files and the link before the container, and nothing else', async () => {
    const { rt, cri, linkDir } = setup();
    const c = rt.add('abc', 10);
    const other = rt.add('abcd', 10);
    await cri.runtime.startContainer('abc');
    for (const f of ['20261126-030000.gz', '20261126-030010']) writeFileSync(`${c.log}.${f}`, 'x');
    await cri.runtime.removeContainer('abc');
    expect(readdirSync(rt.dir).sort()).toEqual(['abcd.log', 'links']);
    expect(readdirSync(linkDir)).toEqual([]);
    expect(existsSync(other.log)).toBe(true);
    expect(rt.calls.slice(-2)).toEqual(['containerStatus abc', 'removeContainer abc']);
  });

  it('lets RemoveContainer answer for a container the runtime no longer has', async () => {
    const { cri } = setup();
    await expect(cri.runtime.removeContainer('gone')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND' });
  });

  it('passes every other call through unchanged', async () => {
    const { rt, cri } = setup();
    rt.add('a', 1);
    expect((await cri.runtime.listContainers()).map((c) => c.id)).toEqual(['a']);
  });
});
