/**
 * The pod config machine with its real source actors over the real adapters: a temp directory of
 * manifests and a loopback HTTP server, on the system clock. Periods are long (60 s), so what the
 * file source sees quickly it sees through its watch.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, setup, type AnyEventObject } from 'xstate';
import { createPodConfigActors } from '../../../src/actors/pod-config/pod-config-actors.js';
import { createPodSourceIo } from '../../../src/adapters/pod-sources/index.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { podConfigMachine, type PodConfigInput } from '../../../src/machines/pod-config.machine.js';
import type { Clock } from '../../../src/ports/clock.js';
import type { PodSourceIo } from '../../../src/ports/pod-sources.js';
import { createChangeWaiter } from '../../support/change-waiter.js';

const fixture = (name: string) => new URL(`../../fixtures/manifests/${name}`, import.meta.url);

let dir: string;
let server: Server | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klt-pod-config-'));
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = null;
  }
});

function run(input: Partial<PodConfigInput>) {
  const waiter = createChangeWaiter();
  const received: AnyEventObject[] = [];
  /** What the file source did through its port: reads started, watches opened (and closed through it). */
  const fileIo = { reads: 0, watches: [] as { closed: boolean }[] };
  /** Timers the source actors armed on their clock that have neither fired nor been cleared. */
  const pendingTimers = new Set<unknown>();
  const realIo = createPodSourceIo();
  const io: PodSourceIo = {
    ...realIo,
    fileSource: (opts) => {
      const reader = realIo.fileSource(opts);
      return {
        read: () => {
          fileIo.reads++;
          waiter.changed();
          return reader.read();
        },
        watch: (onEvent) => {
          const watch = reader.watch(onEvent);
          const opened = { closed: false };
          fileIo.watches.push(opened);
          waiter.changed();
          return {
            close() {
              opened.closed = true;
              watch.close();
            },
          };
        },
      };
    },
  };
  const clock: Clock = {
    now: () => systemClock.now(),
    setTimeout: (fn, ms) => {
      const id = systemClock.setTimeout((...args) => {
        pendingTimers.delete(id);
        fn(...args);
      }, ms);
      pendingTimers.add(id);
      return id;
    },
    clearTimeout: (id) => {
      pendingTimers.delete(id);
      systemClock.clearTimeout(id);
    },
  };
  const actors = createPodConfigActors({ clock, logger: pino({ level: 'silent' }), io });
  const parent = setup({ actors: { podConfig: podConfigMachine.provide({ actors }) } }).createMachine({
    invoke: {
      id: 'podConfig',
      src: 'podConfig',
      input: {
        nodeName: 'node-1', staticPodPath: '', fileCheckFrequencyMs: 60_000,
        staticPodURL: '', staticPodURLHeader: {}, httpCheckFrequencyMs: 60_000, ...input,
      },
    },
    on: {
      '*': {
        actions: ({ event }) => {
          received.push(event);
          waiter.changed();
        },
      },
    },
  });
  const actor = createActor(parent).start();
  const lines = () => received.map(describeEvent);
  /** Resolves when an event the parent received reads as `line` (checked as each one arrives). */
  const until = (line: RegExp, timeoutMs = 5000): Promise<void> =>
    waiter.until(() => lines().some((l) => line.test(l)), () => `${line} in ${JSON.stringify(lines())}`, timeoutMs);
  return { actor, lines, until, untilTrue: waiter.until, fileIo, pendingTimers, clear: () => received.splice(0), received };
}

function describeEvent(e: AnyEventObject): string {
  if (e.type === 'pod.config.updated') return `${e['op']} ${e['source']} ${(e['pods'] as Pod[]).map((p) => `${p.metadata.name}@${p.spec.containers[0]?.image}`).join(',')}`;
  if (e.type === 'pod.manifest.rejected') return `rejected ${e['source']} ${e['origin']}`;
  if (e.type === 'pod.manifest.cleared') return `cleared ${e['source']} ${e['origin']}`;
  return e.type;
}

describe('pod config with the real sources', () => {
  it('starts static pods, restarts an edited one with its new spec, removes a deleted one, and reports a malformed one by name until it is gone', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    copyFileSync(fixture('not-yaml.yaml'), join(dir, 'broken.yaml'));
    const t = run({ staticPodPath: dir });
    try {
      await t.until(/^pod\.config\.sourcesReady$/);
      expect(t.lines()).toEqual([
        'ADD file web-node-1@registry.example/web:1.2',
        `rejected file ${join(dir, 'broken.yaml')}`,
        'pod.config.sourcesReady',
      ]);
      t.clear();

      writeFileSync(join(dir, 'web.yaml'), readFileSync(fixture('web.yaml'), 'utf8').replace('web:1.2', 'web:1.3'));
      await t.until(/^ADD /);
      // A new manifest is a new pod (its UID is the manifest's hash): the old one goes first.
      expect(t.lines()).toEqual(['REMOVE file web-node-1@registry.example/web:1.2', 'ADD file web-node-1@registry.example/web:1.3']);
      t.clear();

      unlinkSync(join(dir, 'web.yaml'));
      await t.until(/^REMOVE /);
      expect(t.lines()).toEqual(['REMOVE file web-node-1@registry.example/web:1.3']);
      t.clear();

      // Deleting the malformed file clears its rejection (it stayed listed before: issue 14).
      unlinkSync(join(dir, 'broken.yaml'));
      await t.until(/^cleared /);
      expect(t.lines()).toEqual([`cleared file ${join(dir, 'broken.yaml')}`]);
    } finally {
      t.actor.stop();
    }
  });

  it('fetches pods from a URL with its headers, and keeps them when the server starts failing', async () => {
    let status = 200;
    const auth: (string | undefined)[] = [];
    server = createServer((req, res) => {
      auth.push(req.headers['authorization']);
      res.writeHead(status);
      res.end(status === 200 ? readFileSync(fixture('pod-list.yaml')) : 'down');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
    const t = run({ staticPodURL: url, staticPodURLHeader: { Authorization: ['Bearer x'] }, httpCheckFrequencyMs: 100 });
    try {
      await t.until(/^pod\.config\.sourcesReady$/);
      expect(t.lines()).toEqual(['ADD http one-node-1@busybox:1.36,two-node-1@busybox:1.36', 'pod.config.sourcesReady']);
      expect(auth[0]).toBe('Bearer x');
      t.clear();
      status = 500;
      await t.until(/^rejected http /);
      // A few more failing polls, counted by the server: the failure is reported once, not per poll.
      const failedPollsSeen = auth.length;
      await vi.waitFor(() => expect(auth.length).toBeGreaterThan(failedPollsSeen + 2), { timeout: 5000, interval: 20 });
      expect(t.lines()).toEqual([`rejected http ${url}`]);
    } finally {
      t.actor.stop();
    }
  });

  it('stops its watchers and timers when stopped', async () => {
    copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
    const t = run({ staticPodPath: dir });
    await t.until(/^pod\.config\.sourcesReady$/);
    t.actor.stop();
    t.clear();
    expect(t.fileIo.watches.length).toBeGreaterThan(0);
    expect(t.fileIo.watches.every((w) => w.closed)).toBe(true);
    expect(t.pendingTimers.size).toBe(0);
    const readsAtStop = t.fileIo.reads;
    // An absence, behind a barrier: a second pod config on the same directory, still running, sees
    // the deletion and then a re-creation. Had the stopped source's watch stayed open, it would have
    // heard the deletion with the witness and read one debounce later, before the witness, its own
    // read of the deletion done, even began the debounce that ends in its ADD.
    const witness = run({ staticPodPath: dir });
    try {
      await witness.until(/^pod\.config\.sourcesReady$/);
      witness.clear();
      unlinkSync(join(dir, 'web.yaml'));
      await witness.until(/^REMOVE /);
      copyFileSync(fixture('web.yaml'), join(dir, 'web.yaml'));
      await witness.until(/^ADD /);
    } finally {
      witness.actor.stop();
    }
    expect(t.lines()).toEqual([]);
    expect(t.fileIo.reads).toBe(readsAtStop);
  });
});

describe('pod config with the real file source, path appearing late', () => {
  it('sees a manifest directory created after start without waiting for a poll', async () => {
    const late = join(dir, 'manifests');
    const t = run({ staticPodPath: late });
    try {
      await t.until(/^pod\.config\.sourcesReady$/);
      expect(t.lines()).toEqual([`rejected file ${late}`, 'pod.config.sourcesReady']);
      t.clear();
      mkdirSync(late);
      // The watch moves into the new directory: the parent directory's watch reports itself lost and
      // the source opens a second watch, on the directory itself, before its next read.
      await t.untilTrue(() => t.fileIo.watches.length === 2, () => `a second watch (${t.fileIo.watches.length} opened)`);
      copyFileSync(fixture('web.yaml'), join(late, 'web.yaml'));
      await t.until(/^ADD /);
      // The missing path's rejection is cleared by the first read that finds the directory: the
      // one that adds the pod, or an earlier one of the empty directory.
      expect([...t.lines()].sort()).toEqual(['ADD file web-node-1@registry.example/web:1.2', `cleared file ${late}`]);
    } finally {
      t.actor.stop();
    }
  });
});
