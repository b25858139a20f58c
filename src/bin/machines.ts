/**
 * The machine definitions a run uses, hashed into the journal header so replay can refuse a log
 * recorded by other definitions. A definition is its config (functions in it by their source) and
 * the implementations given to setup(): actions, guards and delays by their source, with what
 * XState's action creators keep on them (an enqueueActions' collect, an assign's assigner). Not
 * hashed: what a function reaches through its closure, and the effect actors (provided at run time).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/journal/canonical-json.js';
import type { AnyStateMachine } from 'xstate';
import { MACHINES } from '../machines/index.js';

/**
 * The name scripts/bundle-daemon.ts replaces with the hash of tsc's build (see there for why): in
 * the bundled binary, the registry's hash is that one; from tsc's output it is computed here.
 */
export const MACHINES_SHA256_GLOBAL = '__KLT_MACHINES_SHA256__';
declare const __KLT_MACHINES_SHA256__: string | undefined;

const bySource = (_key: string, value: unknown) => (typeof value === 'function' ? String(value) : value);

/** A function as its source and its own members (XState keeps an action creator's arguments there). */
function describeImplementation(value: unknown, depth = 0): unknown {
  if (depth > 4) return null;
  if (typeof value === 'function') {
    const members = Object.entries(value).filter(([k]) => k !== 'resolve' && k !== 'execute');
    return { source: String(value), ...Object.fromEntries(members.map(([k, v]) => [k, describeImplementation(v, depth + 1)])) };
  }
  if (Array.isArray(value)) return value.map((v) => describeImplementation(v, depth + 1));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeImplementation(v, depth + 1)]));
  }
  return value ?? null;
}

export function machinesSha256(machines: Readonly<Record<string, AnyStateMachine>> = MACHINES): string {
  if (machines === MACHINES && typeof __KLT_MACHINES_SHA256__ === 'string') return __KLT_MACHINES_SHA256__;
  const text = Object.entries(machines)
    .map(([name, m]) => {
      const { actions, guards, delays } = m.implementations;
      const config = canonicalJson(JSON.parse(JSON.stringify(m.config, bySource)));
      return `${name}:${config}:${canonicalJson(describeImplementation({ actions, guards, delays }))}`;
    })
    .join('\n');
  return createHash('sha256').update(text).digest('hex');
}

const byPlaceholder = (_key: string, value: unknown) => (typeof value === 'function' ? 'function' : value);

/**
 * The definitions with every function's text left out: what a reprinting bundler must not change.
 * scripts/bundle-daemon.ts compares the bundle's with tsc's before giving the bundle tsc's hash.
 */
export function machinesShape(machines: Readonly<Record<string, AnyStateMachine>> = MACHINES): string {
  return Object.entries(machines)
    .map(([name, m]) => {
      const { actions, guards, delays } = m.implementations;
      const config = canonicalJson(JSON.parse(JSON.stringify(m.config, byPlaceholder)));
      const implementations = JSON.stringify(describeImplementation({ actions, guards, delays }), (k, v) => (k === 'source' ? 'function' : v));
      return `${name}:${config}:${canonicalJson(JSON.parse(implementations))}`;
    })
    .join('\n');
}
