import { describe, expect, it } from 'vitest';
import { createActor, createMachine, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { ActorDirectory } from '../../../src/actors/debug/actor-directory.js';

const clock = { now: () => 0 } as ConstructorParameters<typeof ActorDirectory>[0];

/** A parent that spawns workers on demand; a worker ends by itself (`finish`) or is stopped (`stop`). */
const worker = createMachine({ id: 'worker', initial: 'working', states: { working: { on: { finish: 'finished' } }, finished: { type: 'final' } } });
const parent = setup({ types: { events: {} as { type: 'spawn' | 'stop'; id: string } }, actors: { worker } }).createMachine({
  id: 'parent',
  initial: 'running',
  states: {
    running: {
      on: {
        spawn: { actions: enqueueActions(({ event, enqueue }) => enqueue.spawnChild('worker', { id: event.id, systemId: event.id })) },
        stop: { actions: enqueueActions(({ event, enqueue }) => enqueue.stopChild(event.id)) },
      },
    },
  },
});

function started() {
  const directory = new ActorDirectory(clock, (ref: AnyActorRef) => ref.id);
  const actor = createActor(parent, { id: 'root', inspect: directory.inspect });
  actor.start();
  return { directory, actor, ids: () => directory.list().map((v) => `${v.id}:${v.status}`).sort() };
}

describe('ActorDirectory', () => {
  it('drops a machine that ends while its parent runs on, whether it finished or was stopped', () => {
    const { actor, ids, directory } = started();
    for (const id of ['w1', 'w2', 'w3']) actor.send({ type: 'spawn', id });
    expect(ids()).toEqual(['root:active', 'w1:active', 'w2:active', 'w3:active']);
    actor.system.get('w1')!.send({ type: 'finish' });
    actor.send({ type: 'stop', id: 'w2' });
    expect(ids()).toEqual(['root:active', 'w3:active']);
    expect(directory.snapshot('w1')).toBeUndefined();
    expect(directory.snapshot('w2')).toBeUndefined();
  });

  it('keeps the machines that stop with the system, in their final status', () => {
    const { actor, ids, directory } = started();
    actor.send({ type: 'spawn', id: 'w1' });
    actor.stop();
    expect(ids()).toEqual(['root:stopped', 'w1:stopped']);
    expect(directory.find('root')?.status).toBe('stopped');
  });
});
