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

type FunctionText = (fn: (...args: never[]) => unknown) => string;

/** A function as its text and its own members (XState keeps an action creator's arguments there). */
function describeImplementation(value: unknown, text: FunctionText, depth = 0): unknown {
  if (depth > 4) return null;
  if (typeof value === 'function') {
    const members = Object.entries(value).filter(([k]) => k !== 'resolve' && k !== 'execute');
    return { source: text(value as (...args: never[]) => unknown), ...Object.fromEntries(members.map(([k, v]) => [k, describeImplementation(v, text, depth + 1)])) };
  }
  if (Array.isArray(value)) return value.map((v) => describeImplementation(v, text, depth + 1));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeImplementation(v, text, depth + 1)]));
  }
  return value ?? null;
}

/** Each machine's config and setup() implementations, canonical, every function written as `text` gives it. */
function describeMachines(machines: Readonly<Record<string, AnyStateMachine>>, text: FunctionText): string {
  const withText = (_key: string, value: unknown) => (typeof value === 'function' ? text(value as (...args: never[]) => unknown) : value);
  return Object.entries(machines)
    .map(([name, m]) => {
      const { actions, guards, delays } = m.implementations;
      const config = canonicalJson(JSON.parse(JSON.stringify(m.config, withText)));
      return `${name}:${config}:${canonicalJson(describeImplementation({ actions, guards, delays }, text))}`;
    })
    .join('\n');
}

export function machinesSha256(machines: Readonly<Record<string, AnyStateMachine>> = MACHINES): string {
  if (machines === MACHINES && typeof __KLT_MACHINES_SHA256__ === 'string') return __KLT_MACHINES_SHA256__;
  return createHash('sha256').update(describeMachines(machines, String)).digest('hex');
}

/**
 * The definitions with every function's text left out: what a reprinting bundler must not change.
 * scripts/bundle-daemon.ts compares the bundle's with tsc's before giving the bundle tsc's hash.
 */
export function machinesShape(machines: Readonly<Record<string, AnyStateMachine>> = MACHINES): string {
  return describeMachines(machines, () => 'function');
}
