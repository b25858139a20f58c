/**
 * The seams are typed: each `@ts-expect-error` below is a wrongly typed effect, phase output or
 * subsystem input that must not compile. Checked by `tsc -p test` (npm run typecheck, npm
 * test); if a seam went back to `Record<string, …>` or a cast, the line would compile, its
 * `@ts-expect-error` would be unused, and that is an error too.
 */
import { fromPromise } from 'xstate';
import { outputOf, phaseActor, type PhaseGroup } from '../../src/actors/phases/phase-actor.js';
import type { SystemEffects } from '../../src/bin/system.js';
import type { RelistInput, RelistOutput } from '../../src/domain/pleg/relist.js';
import type { PodSyncOutcome } from '../../src/domain/pod/sync-outcome.js';
import type { SyncPodInput } from '../../src/machines/pod-worker.machine.js';
import { supervisorMachine, type KubeletRunOutput, type PhaseInput } from '../../src/machines/supervisor.machine.js';
import { runtimeMachine } from '../../src/machines/runtime.machine.js';
import { syncLoopMachine } from '../../src/machines/sync-loop.machine.js';

declare const effects: SystemEffects;
declare const input: PhaseInput;
declare const overridden: boolean;
const never = () => new Promise<never>(() => {});

// Effects: the right input and output fit; a wrong output or a wrong input does not.
export const rightEffect: SystemEffects = { ...effects, relist: fromPromise<RelistOutput, RelistInput>(never) };
// @ts-expect-error the PLEG's relist answering a string instead of a RelistOutput
export const wrongOutput: SystemEffects = { ...effects, relist: fromPromise<string, RelistInput>(never) };
// @ts-expect-error syncPod taking something else than a SyncPodInput
export const wrongInput: SystemEffects = { ...effects, syncPod: fromPromise<PodSyncOutcome, { podName: number }>(never) };
export const rightSyncPod: SystemEffects = { ...effects, syncPod: fromPromise<PodSyncOutcome, SyncPodInput>(never) };

// Phase outputs: a phase answers its own PhaseOutputs entry, and readers see that type.
export const rightPhase = {
  'run.nodeName': phaseActor(async () => ({ hostname: 'h', nodeName: 'n', hostnameOverridden: overridden })),
} satisfies PhaseGroup;
export const wrongPhase = {
  // @ts-expect-error run.nodeName answering a number where its output names the node
  'run.nodeName': phaseActor(async () => ({ nodeName: 42 })),
} satisfies PhaseGroup;
export const nodeName: string = outputOf(input, 'run.nodeName').nodeName;
// @ts-expect-error run.nodeName has no nodeIps (runKubelet.validateNodeIP has)
export const misread = outputOf(input, 'run.nodeName').nodeIps;
// @ts-expect-error not a phase
export const notAPhase = outputOf(input, 'run.nowhere');

// Subsystems: Kubelet.Run hands each its machine's Input, and only that machine fits its slot.
export const rightRun: KubeletRunOutput = { runtime: { startedAtMs: 0 } };
// @ts-expect-error the runtime's input needs startedAtMs
export const wrongRun: KubeletRunOutput = { runtime: { periodMs: 5 } };
export const rightSlot = supervisorMachine.provide({ actors: { runtime: runtimeMachine } });
// @ts-expect-error the syncLoop machine in the runtime's slot
export const wrongSlot = supervisorMachine.provide({ actors: { runtime: syncLoopMachine } });
