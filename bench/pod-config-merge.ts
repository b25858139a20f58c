/**
 * The pod config's merge under a cluster-mode burst: 110 API pods (each with the kube-api-access
 * projected volume and a configMap volume, as a real cluster's pods have), 220 watch events each
 * changing one pod's status, and every event merging the whole snapshot (as the apiserver source
 * sends it). Two ways side by side, alternating: the objects of unchanged pods re-sent as they were
 * (what api-pod-source.ts does, compared by identity), and every pod defaulted again per event
 * (new objects, compared by canonical JSON, as replay compares them), to show what the first saves.
 * CPU of the views and merges.
 */
import { initialPodConfigState, mergeSnapshot } from '../src/domain/pod-config/merge.js';
import type { Pod } from '../src/domain/pod/types.js';
import { podToRun, podToRunPerObject } from '../src/domain/status-manager/api-pod-snapshot.js';
import { kubeApiAccessVolume } from '../test/apiserver/kube-api-access.js';
import { median, round } from './stats.js';

const PODS = 110;
const EVENTS = 220;

function apiPod(i: number): Pod {
  const access = kubeApiAccessVolume('kube-api-access-x7k2q');
  return {
    metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}`, resourceVersion: '1', labels: { app: 'bench' } },
    spec: {
      nodeName: 'node-a', serviceAccountName: 'default',
      containers: [{
        name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'],
        volumeMounts: [access.mount, { name: 'cfg', mountPath: '/etc/cfg' }],
      }],
      volumes: [access.volume, { name: 'cfg', configMap: { name: 'settings' } }],
    },
    status: { phase: 'Pending' },
  } as Pod;
}

/** CPU milliseconds of EVENTS merges, with unchanged pods re-sent as the same objects or as fresh ones. */
function mergeBurst(resend: boolean): number {
  const api = Array.from({ length: PODS }, (_, i) => apiPod(i));
  // What the apiserver source does (each pod's form kept per object), or every pod defaulted again
  // per event.
  const view = resend ? podToRunPerObject() : podToRun;
  let state = initialPodConfigState();
  const t0 = process.cpuUsage();
  for (let e = 0; e < EVENTS; e++) {
    const i = e % PODS;
    api[i] = { ...api[i]!, metadata: { ...api[i]!.metadata, resourceVersion: String(e + 2) }, status: { phase: e % 2 === 0 ? 'Running' : 'Pending' } };
    state = mergeSnapshot(state, 'api', api.map(view), e).state;
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

export function benchPodConfigMerge(runs = 5): Record<string, number> {
  const resent: number[] = [];
  const fresh: number[] = [];
  for (let r = 0; r < runs; r++) {
    for (const resend of r % 2 === 0 ? [true, false] : [false, true]) (resend ? resent : fresh).push(mergeBurst(resend));
  }
  return {
    pods: PODS, events: EVENTS, runs,
    cpuMsResentObjects: round(median(resent), 0),
    cpuMsFreshObjects: round(median(fresh), 0),
    resentOverFreshRatio: round(median(resent) / median(fresh), 3),
  };
}
