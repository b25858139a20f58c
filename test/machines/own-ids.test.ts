/**
 * Actor ids in the journal are ours (issue 13 item 6): every invocation in every machine is given
 * an id, so an actor's stable id is its systemId or a path of ids we chose, never a name XState
 * makes up (`0.runtime.connecting.checking`), which an XState upgrade could change under every
 * recorded log.
 */
import { describe, expect, it } from 'vitest';
import { MACHINES } from '../../src/machines/index.js';

interface StateConfig { invoke?: unknown; states?: Record<string, StateConfig> }

function invocationsWithoutId(config: StateConfig, path: string): string[] {
  const invokes = config.invoke === undefined ? [] : Array.isArray(config.invoke) ? config.invoke : [config.invoke];
  const missing = invokes
    .filter((i) => typeof (i as { id?: unknown }).id !== 'string')
    .map((i) => `${path} (src ${String((i as { src?: unknown }).src)})`);
  for (const [name, child] of Object.entries(config.states ?? {})) missing.push(...invocationsWithoutId(child, `${path}.${name}`));
  return missing;
}

describe('actor ids we own', () => {
  it.each(Object.entries(MACHINES))('every invocation of %s has an id', (name, machine) => {
    expect(invocationsWithoutId(machine.config as StateConfig, name)).toEqual([]);
  });

  it('finds an invocation without an id', () => {
    expect(invocationsWithoutId({ states: { a: { invoke: { src: 'x' } }, b: { invoke: [{ id: 'y', src: 'y' }] } } }, 'm')).toEqual(['m.a (src x)']);
  });
});
