/**
 * The pod config machine's effectful actors (POD_CONFIG_EFFECTS), provided by the composition root:
 *   podConfigMachine.provide({ actors: createPodConfigActors({ clock, logger, io: createPodSourceIo() }) })
 */
import { fromCallback } from 'xstate';
import type { FileSourceInput, HttpSourceInput, PodSourceEvent } from '../../machines/pod-config.machine.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { PodSourceIo } from '../../ports/pod-sources.js';
import { runSourceLoop } from './source-actor.js';

export interface PodConfigActorDeps {
  clock: Clock;
  logger: Logger;
  io: PodSourceIo;
}

export function createPodConfigActors({ clock, logger, io }: PodConfigActorDeps) {
  return {
    fileSource: fromCallback<PodSourceEvent, FileSourceInput>(({ input, sendBack }) => {
      const reader = io.fileSource({ path: input.path, nodeName: input.nodeName });
      logger.info({ path: input.path, periodMs: input.periodMs }, 'Watching static pod path');
      return runSourceLoop({
        source: 'file',
        periodMs: input.periodMs,
        read: () => reader.read(),
        watch: (onEvent) => reader.watch(onEvent),
        clock,
        logger,
        sendBack,
      });
    }),
    httpSource: fromCallback<PodSourceEvent, HttpSourceInput>(({ input, sendBack }) => {
      const reader = io.httpSource({ url: input.url, header: input.staticPodURLHeader, nodeName: input.nodeName });
      logger.info({ url: input.url, periodMs: input.periodMs }, 'Watching static pod URL');
      return runSourceLoop({ source: 'http', periodMs: input.periodMs, read: () => reader.read(), clock, logger, sendBack });
    }),
  };
}
