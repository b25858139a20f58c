/**
 * The pod side of cluster mode, for the supervisor to wire:
 * - createApiPodSourceActor: the apiserver pod source, invoked with `{ nodeName }`; sends
 *   `pod.source.snapshot` (source 'api') for the pod config and `api.mirrorPods.observed` for the
 *   status manager.
 * - createStatusManagerActors: the effects to `statusManagerMachine.provide({ actors })`.
 * - createApiEventRecorder / createLogEventRecorder: the EventRecorder port (src/ports/event-recorder.ts).
 * - relayAdmissionRejections: the syncLoop's refused pods as Warning events.
 */
export { createApiPodSourceActor, runApiPodSource, type ApiPodSourceEvent, type ApiPodSourceActorDeps } from './api-pod-source.js';
export { createStatusManagerActors, type StatusManagerActorDeps } from './status-manager-actors.js';
export { createApiEventRecorder, createLogEventRecorder, type ApiEventRecorderOptions } from './event-recorder.js';
export { relayAdmissionRejections } from './admission-events.js';
