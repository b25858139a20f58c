/**
 * Eviction thresholds from the configuration's maps (Go: eviction.ParseThresholdConfig and
 * parseThresholdStatement). The values were checked by validate.ts already (non-negative quantity
 * or a percentage within 0–100 %, a grace period for every soft signal); what is left here is what
 * Go decides while parsing:
 * - `0%` and `100%` mean "no threshold" and are dropped; so is a zero quantity (Go refuses it at
 *   start-up with "eviction threshold <signal> must be positive").
 * - A percentage is Go's float32 (parsePercentage), so 10 % of a capacity comes out as Go's.
 * - Hard thresholds have grace period 0; soft ones take evictionSoftGracePeriod's.
 * - evictionMinimumReclaim attaches to every threshold of its signal.
 * - A signal Go knows but we do not observe (UNOBSERVED_SIGNALS) is dropped; any other unknown
 *   signal is an error with Go's message.
 */
import { parseGoDuration } from '../config/duration.js';
import { percentageValue } from '../resources/percentage.js';
import { quantityNumber } from '../resources/quantity.js';
import { isSignal, UNOBSERVED_SIGNALS, type Signal } from './signals.js';

/** A quantity (bytes, inodes or pids) or a fraction (0–1) of the signal's capacity. */
export type ThresholdValue = { quantity: number; text: string } | { percentage: number };

export interface Threshold {
  signal: Signal;
  /** Hard and soft thresholds of one signal are two thresholds; this tells them apart. */
  kind: 'hard' | 'soft';
  value: ThresholdValue;
  /** 0 for a hard threshold (Go's isHardEvictionThreshold is "grace period is zero"). */
  gracePeriodMs: number;
  minReclaim?: ThresholdValue;
}

export interface EvictionConfig {
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionMinimumReclaim: Record<string, string>;
}

export interface ParsedThresholds {
  thresholds: Threshold[];
  errors: string[];
}

/** Go's unsupportedEvictionSignal. */
export const unsupportedSignalMessage = (signal: string) => `unsupported eviction signal ${signal}`;

export function thresholdKey(t: Pick<Threshold, 'signal' | 'kind'>): string {
  return `${t.kind}:${t.signal}`;
}

/** The threshold value `text` stands for, or null when Go ignores it (0 %, 100 %, zero). */
export function parseThresholdValue(text: string): ThresholdValue | null {
  if (text === '0%' || text === '100%') return null;
  const pct = percentageValue(text);
  // Go: float32(ParseFloat(v, 32)) / 100, in float32.
  if (pct !== undefined) return { percentage: Math.fround(Math.fround(pct) / 100) };
  const q = quantityNumber(text);
  return q === undefined || q <= 0 ? null : { quantity: q, text };
}

export function parseThresholdConfig(cfg: EvictionConfig): ParsedThresholds {
  const errors: string[] = [];
  const thresholds: Threshold[] = [];
  const add = (kind: Threshold['kind'], map: Record<string, string>) => {
    for (const [name, text] of Object.entries(map)) {
      if ((UNOBSERVED_SIGNALS as readonly string[]).includes(name)) continue;
      if (!isSignal(name)) {
        errors.push(unsupportedSignalMessage(name));
        continue;
      }
      const value = parseThresholdValue(text);
      if (value === null) continue;
      const gracePeriodMs = kind === 'hard' ? 0 : gracePeriod(cfg.evictionSoftGracePeriod[name]);
      const reclaimText = cfg.evictionMinimumReclaim[name];
      const minReclaim = reclaimText === undefined ? null : parseThresholdValue(reclaimText);
      thresholds.push({ signal: name, kind, value, gracePeriodMs, ...(minReclaim ? { minReclaim } : {}) });
    }
  };
  add('hard', cfg.evictionHard);
  add('soft', cfg.evictionSoft);
  return { thresholds, errors };
}

function gracePeriod(text: string | undefined): number {
  try {
    return text === undefined ? 0 : Math.max(0, parseGoDuration(text));
  } catch {
    return 0; // validate.ts refused it already
  }
}

/** Go's GetThresholdQuantity: the amount a value stands for against `capacity`, whole units. */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  return 'percentage' in value ? Math.trunc(capacity * value.percentage) : value.quantity;
}

export function isHardThreshold(t: Threshold): boolean {
  return t.gracePeriodMs === 0;
}
