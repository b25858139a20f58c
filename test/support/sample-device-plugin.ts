/**
 * The lab's upstream sample device plugin (../shared/lab/peers/README.md: resource
 * example.com/resource, devices Dev-1 and Dev-2, Allocate mounts /tmp/<id>) for a kubelet whose
 * device-plugins directory is a test's own: found as $KUBELET_IT_SAMPLE_DEVICE_PLUGIN, else in
 * KUBE_LAB_BIN (built on the machine, lab-bin.ts); started through
 * run-sample-device-plugin.sh (its compiled-in /var/lib/kubelet/device-plugins mapped to the
 * directory in a mount namespace of its own), its log kept, stopped by SIGTERM. Needs root. Only one
 * may run on a machine at a time: the /tmp/Dev-N files are shared.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { peerBinary, peerUnbuilt } from './lab-bin.js';
import type { RealPart } from './real-parts.js';

export const SAMPLE_RESOURCE = 'example.com/resource';
export const SAMPLE_DEVICES = ['Dev-1', 'Dev-2'];

const peersDir = (env: NodeJS.ProcessEnv) => env.KUBELET_IT_LAB_PEERS || resolve('..', 'shared', 'lab', 'peers');
const BINARY = 'sample-device-plugin';
const VARIABLE = 'KUBELET_IT_SAMPLE_DEVICE_PLUGIN';

export function sampleDevicePluginPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  const root = process.getuid?.() === 0;
  return {
    name: 'the lab\'s sample device plugin (../shared/lab/peers)',
    missing: root ? '' : 'it runs in a mount namespace of its own: root is needed',
    unbuilt: peerUnbuilt(VARIABLE, BINARY, env),
  };
}

function binary(env: NodeJS.ProcessEnv = process.env): string {
  return peerBinary(VARIABLE, BINARY, env);
}

export interface SampleDevicePlugin {
  /** Everything it logged so far. */
  log(): string;
  /** SIGTERM, and its exit waited for (its socket stays; the kubelet sees the stream end). */
  stop(): Promise<void>;
}

/** Started for the kubelet whose device-plugins directory is `dir`; it registers at once (and panics after 10 s if it cannot). */
export function startSampleDevicePlugin(dir: string, env: NodeJS.ProcessEnv = process.env): SampleDevicePlugin {
  const child: ChildProcess = spawn('bash', [join(peersDir(env), 'run-sample-device-plugin.sh'), dir, binary(env)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { log += c; });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { log += c; });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    log: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The device files the plugin's Allocate makes on the host, removed (they are shared by every run on the machine). */
export function removeSampleDeviceFiles(): void {
  for (const id of SAMPLE_DEVICES) rmSync(join('/tmp', id), { force: true });
}
