/**
 * execPlugin over real plugins (shell scripts): a failure says how much the plugin wrote to stderr,
 * never what; a plugin that leaves a child holding its stdout, or never answers, does not hold the
 * caller, and what it started is killed with it.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execPlugin } from '../../../src/adapters/credential-provider/exec-plugin.js';
import type { CredentialProvider } from '../../../src/domain/credentials/provider-config.js';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.s3cr3t-T0KEN';
/** How long a test waits for a killed process to be gone: generous for a loaded machine. */
const GONE_WITHIN_MS = 10_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-exec-plugin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function plugin(body: string): CredentialProvider {
  writeFileSync(join(dir, 'plugin'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'plugin'), 0o755);
  return { name: 'plugin', matchImages: ['reg.io'], defaultCacheDurationMs: 0, apiVersion: V1, args: [], env: [] };
}

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('it did not fail'); }, (err: Error) => err.message);

/** Whether the process is gone: no such pid, or a zombie nobody has reaped yet (it runs nothing). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw err;
  }
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('Z');
}

/** Polls the process's state until it is gone; fails after GONE_WITHIN_MS. */
async function expectGone(pid: number): Promise<void> {
  const until = Date.now() + GONE_WITHIN_MS;
  while (!isGone(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} still runs`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('execPlugin', () => {
  it('says how many bytes the plugin wrote to stderr, never what (#60)', async () => {
    const p = plugin(`cat >/dev/null; printf 'fetched %s\\n' '${TOKEN}' >&2; exit 3`);
    const message = await failure(execPlugin(dir, p, 'reg.io/app', '{}'));
    expect(message).toBe(`error execing credential provider plugin plugin for image reg.io/app: exit status 3; the plugin wrote ${TOKEN.length + 9} bytes to stderr (not shown: it may hold a credential)`);
    expect(message).not.toContain('s3cr3t');
  });

  it('answers when the plugin exits though a child it left holds stdout, and kills that child (#60)', async () => {
    // A child that would outlive the plugin: the test asserts it is killed with it.
    const p = plugin(`cat >/dev/null; sleep 1000 & echo $! > ${dir}/child.pid; echo '{"ok":true}'; exit 0`);
    // The default minute: the answer must come from the plugin's exit, not from the deadline.
    expect(await execPlugin(dir, p, 'reg.io/app', '{}')).toBe('{"ok":true}\n');
    await expectGone(Number(readFileSync(join(dir, 'child.pid'), 'utf8')));
  });

  it('fails at its deadline when the plugin never exits, and kills its whole process group (#60)', async () => {
    // A plugin and child that would run on: the test asserts both are killed at the timeout.
    const p = plugin(`sleep 1000 & echo $! > ${dir}/child.pid; echo $$ > ${dir}/plugin.pid; exec sleep 1000`);
    const message = await failure(execPlugin(dir, p, 'reg.io/app', '{}', 300));
    expect(message).toMatch(/^error execing credential provider plugin plugin for image reg\.io\/app: context deadline exceeded \(no answer within 300 ms; its process group was killed\); the plugin wrote 0 bytes to stderr/);
    await expectGone(Number(readFileSync(join(dir, 'child.pid'), 'utf8')));
    await expectGone(Number(readFileSync(join(dir, 'plugin.pid'), 'utf8')));
  });
});
