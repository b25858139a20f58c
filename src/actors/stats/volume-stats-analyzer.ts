/**
 * The volume stats, measured in the background and answered from a cache (Go: fsResourceAnalyzer
 * with one volumeStatCalculator per pod). Every period the pods the volume manager knows are
 * listed: a new one gets a calculator, which measures its mounted volumes at once and then again a
 * period to twice a period after each measurement ends (Go's JitterUntil, factor 1.0, sliding); a
 * pod gone has its calculator stopped and its stats dropped. Readers (the summary, /metrics) never
 * wait for a measurement.
 *
 * Measurements run off the actors: walks and statfs are asynchronous I/O in the host adapter, one
 * volume at a time per pod. ConfigMap, Secret, downward API and projected volumes are measured
 * once per set-up that changed their content (Go's CachedMetrics).
 */
import type { Logger } from '../../log.js';
import { podVolumeStats, volumeMetricsSource, type PodVolumeStats, type VolumeReading } from '../../domain/stats/volume-stats.js';
import type { MountedVolume, PodMountedVolumes } from '../../domain/volume-manager/mounted-volumes.js';
import type { PodRef } from '../../domain/volume-manager/state.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';

export interface VolumeStatsAnalyzerDeps {
  clock: Clock;
  random: Random;
  /** The volume manager's pods and their mounted volumes, as of now. */
  pods: () => PodMountedVolumes[];
  measure: (podUid: string, volume: MountedVolume) => Promise<VolumeReading | null>;
  logger?: Pick<Logger, 'debug' | 'info'>;
}

interface Calculator {
  pod: PodRef;
  timer: unknown;
  stopped: boolean;
  latest?: PodVolumeStats;
  /** Readings measured once per set-up, by volume name. */
  once: Map<string, { hostPath: string; contentVersion: number; reading: VolumeReading }>;
}

export class VolumeStatsAnalyzer {
  private readonly calculators = new Map<string, Calculator>();

  constructor(private readonly deps: VolumeStatsAnalyzerDeps) {}

  /** Starts the background measurements; a period of 0 or less disables them, as in Go. Answers how to stop. */
  start(periodMs: number): () => void {
    if (periodMs <= 0) {
      this.deps.logger?.info({}, 'Volume stats collection disabled.');
      return () => {};
    }
    this.deps.logger?.info({ periodMs }, 'Starting FS ResourceAnalyzer');
    let stopped = false;
    let timer: unknown;
    const tick = () => {
      this.updateCalculators(periodMs);
      if (!stopped) timer = this.deps.clock.setTimeout(tick, periodMs);
    };
    tick();
    return () => {
      stopped = true;
      this.deps.clock.clearTimeout(timer);
      for (const uid of [...this.calculators.keys()]) this.stopCalculator(uid);
    };
  }

  /** The pod's latest volume stats; undefined before its first measurement, or for a pod not known. */
  podVolumeStats(podUid: string): PodVolumeStats | undefined {
    return this.calculators.get(podUid)?.latest;
  }

  /** Every pod's latest volume stats, by pod uid. */
  all(): Map<string, PodVolumeStats> {
    const out = new Map<string, PodVolumeStats>();
    for (const [uid, c] of this.calculators) if (c.latest) out.set(uid, c.latest);
    return out;
  }

  private updateCalculators(periodMs: number): void {
    const current = new Set<string>();
    for (const { pod } of this.deps.pods()) {
      current.add(pod.uid);
      if (this.calculators.has(pod.uid)) continue;
      const calc: Calculator = { pod, timer: undefined, stopped: false, once: new Map() };
      this.calculators.set(pod.uid, calc);
      void this.runCalculator(calc, periodMs);
    }
    for (const uid of [...this.calculators.keys()]) if (!current.has(uid)) this.stopCalculator(uid);
  }

  private stopCalculator(uid: string): void {
    const calc = this.calculators.get(uid);
    if (!calc) return;
    calc.stopped = true;
    this.deps.clock.clearTimeout(calc.timer);
    this.calculators.delete(uid);
  }

  private async runCalculator(calc: Calculator, periodMs: number): Promise<void> {
    await this.calculate(calc);
    if (calc.stopped) return;
    calc.timer = this.deps.clock.setTimeout(() => void this.runCalculator(calc, periodMs), periodMs * (1 + this.deps.random.next()));
  }

  /** Go's calcAndStoreStats: each mounted volume measured; one that fails is left out. */
  private async calculate(calc: Calculator): Promise<void> {
    const uid = calc.pod.uid;
    const volumes = this.deps.pods().find((p) => p.pod.uid === uid)?.volumes ?? [];
    // Go stores nothing for a pod without mounted volumes (ListVolumesForPod finds none).
    if (volumes.length === 0) return;
    const measured: { volume: MountedVolume; reading: VolumeReading }[] = [];
    for (const volume of volumes) {
      if (calc.stopped) return;
      const reading = await this.measureOne(calc, volume);
      if (reading) measured.push({ volume, reading });
    }
    if (calc.stopped) return;
    calc.latest = podVolumeStats(calc.pod, measured);
    const names = new Set(volumes.map((v) => v.name));
    for (const name of [...calc.once.keys()]) if (!names.has(name)) calc.once.delete(name);
  }

  private async measureOne(calc: Calculator, volume: MountedVolume): Promise<VolumeReading | null> {
    const once = volumeMetricsSource(volume.plugin) === 'duOnce';
    const cached = calc.once.get(volume.name);
    if (once && cached && cached.hostPath === volume.hostPath && cached.contentVersion === volume.contentVersion) return cached.reading;
    let reading: VolumeReading | null;
    try {
      reading = await this.deps.measure(calc.pod.uid, volume);
    } catch (err) {
      reading = null;
      this.deps.logger?.debug({ pod: `${calc.pod.namespace}/${calc.pod.name}`, podUID: calc.pod.uid, volumeName: volume.name, err }, 'Failed to calculate volume metrics');
    }
    // Go caches only a measurement that succeeded.
    if (once && reading) calc.once.set(volume.name, { hostPath: volume.hostPath, contentVersion: volume.contentVersion, reading });
    return reading;
  }
}
