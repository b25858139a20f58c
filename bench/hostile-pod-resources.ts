/**
 * Pod resources clients asking List in a tight loop: 8 channels, each with its next call sent as
 * soon as the last is answered. The kubelet answers within its rate limit and refuses the rest with
 * ResourceExhausted, as Go's server does.
 */
import * as grpc from '@grpc/grpc-js';
import { loadPodResourcesProto } from '../src/adapters/pod-resources/pod-resources-proto.js';
import type { HostileCase } from './hostile-case.js';

const CLIENTS = 8;

export const podResourcesListLoop: HostileCase = {
  name: `pod resources: List in a tight loop on ${CLIENTS} channels`,
  async attack(k, seconds) {
    const codecs = loadPodResourcesProto().List;
    const until = Date.now() + seconds * 1000;
    const counts = { answered: 0, refused: 0, failed: 0 };
    const loop = async () => {
      const client = new grpc.Client(`unix:${k.podResourcesSocket}`, grpc.credentials.createInsecure());
      try {
        while (Date.now() < until) {
          const code = await new Promise<number>((resolve) => {
            client.makeUnaryRequest(codecs.path, codecs.requestSerialize as (v: object) => Buffer, codecs.responseDeserialize, {}, { deadline: Date.now() + 5_000 }, (err) => resolve(err ? err.code : grpc.status.OK));
          });
          if (code === grpc.status.OK) counts.answered++;
          else if (code === grpc.status.RESOURCE_EXHAUSTED) counts.refused++;
          else counts.failed++;
        }
      } finally {
        client.close();
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, loop));
    return {
      outcome: counts.refused > 0 ? 'bounded' : 'answered',
      detail: `${counts.answered} answered, ${counts.refused} refused (ResourceExhausted), ${counts.failed} failed`,
    };
  },
};
