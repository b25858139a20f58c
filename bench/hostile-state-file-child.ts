/**
 * One start-up read of the state files, in a process of its own, by the readers the kubelet runs as
 * it starts: the device manager's checkpoint, then the resource managers' state files (state-files.ts
 * over the daemon's checkpoint files and device plugin host), with the none policies, on a root dir
 * a case filled. The loop is sampled every 10 ms once the modules are loaded; the RSS growth is the
 * kernel's peak over the read less the RSS before it. Prints a StateFileRead as JSON.
 */
import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { createDevicePluginHost } from '../src/adapters/device-plugins/device-plugin-host.js';
import { checkpointFiles } from '../src/adapters/host/checkpoint-files.js';
import { readStateFiles, resourceStateFiles } from '../src/actors/resource-managers/state-files.js';
import { startStallMeter } from './loop-stall.js';
import { statusKiB } from './loop-window.js';

export interface StateFileRead {
  /** The read's error message, or null when it was taken. */
  refusal: string | null;
  maxStallMs: number;
  rssGrowthMiB: number;
  cpuSeconds: number;
  ms: number;
}

const RESOLUTION_MS = 10;

async function main(rootDir: string, devicePluginsDir: string): Promise<StateFileRead> {
  const logger = pino({ level: 'silent' });
  const store = createDevicePluginHost({ logger, nowMs: () => Date.now(), metrics: { registrations: {}, allocDurations: {} } });
  const files = resourceStateFiles({
    rootDir,
    inventory: { devices: {}, cpu: null, memory: null, topology: { policy: 'none', scope: 'container', options: {}, numaNodes: [0], distances: {} } },
    policies: { cpu: 'none', memory: 'None' },
    files: checkpointFiles,
    devices: { dir: devicePluginsDir, store },
  });
  // Settle what loading the modules left, then measure the read alone.
  await new Promise((r) => setTimeout(r, 200));
  writeFileSync('/proc/self/clear_refs', '5');
  const startKiB = statusKiB('self', 'VmRSS');
  const startCpu = process.cpuUsage();
  const meter = startStallMeter(RESOLUTION_MS);
  const t0 = performance.now();
  let refusal: string | null = null;
  const refused = (err: unknown) => { refusal ??= (err as Error).message; };
  // As the kubelet starts: the device manager's input reads its checkpoint (a refusal logged), then the state files.
  await store.read(devicePluginsDir).catch(refused);
  await readStateFiles(files).catch(refused);
  const ms = performance.now() - t0;
  // Let one more sample land, so a block at the very end is counted.
  await new Promise((r) => setTimeout(r, 3 * RESOLUTION_MS));
  const { maxStallMs } = meter.read();
  meter.stop();
  const cpu = process.cpuUsage(startCpu);
  return { refusal, maxStallMs, rssGrowthMiB: (statusKiB('self', 'VmHWM') - startKiB) / 1024, cpuSeconds: (cpu.user + cpu.system) / 1e6, ms };
}

main(process.argv[2]!, process.argv[3]!).then((r) => process.stdout.write(JSON.stringify(r)), (err: unknown) => {
  process.stderr.write(String(err instanceof Error ? err.stack : err));
  process.exit(1);
});
