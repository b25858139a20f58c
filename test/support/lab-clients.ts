/**
 * In-process clients on the run's real control plane (kube-lab.ts), for suites that wire the
 * kubelet's own actors to it without the daemon: the kubelet's API clients as system:node:<name>
 * (a client certificate from node-kubeconfig.sh, so the Node authorizer and NodeRestriction judge
 * every request, as they do a node's), and @kubernetes/client-node as system:masters for what a
 * user does with kubectl.
 */
import '../apiserver/node20-compat.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { createApiClients } from '../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import type { KubeLab } from './kube-lab-up.js';
import { runScript, scriptEnv } from './kube-lab-scripts.js';

/** The kubelet's clients as node `node`, unthrottled unless `opts` says otherwise; its kubeconfig written into `dir`. */
export async function labNodeClients(
  lab: KubeLab, node: string, dir: string, opts: { qps?: number; burst?: number; heartbeatTimeoutMs?: number } = {},
): Promise<ApiClients> {
  const kubeconfigPath = join(dir, `${node}.kubeconfig`);
  writeFileSync(kubeconfigPath, await runScript('bash', [join(lab.scripts, 'node-kubeconfig.sh'), node], scriptEnv(lab.dir), 30_000));
  const qps = opts.qps ?? 0;
  const burst = opts.burst ?? 0;
  return createApiClients({
    kubeconfigPath, qps, burst, eventQps: qps, eventBurst: burst, heartbeatTimeoutMs: opts.heartbeatTimeoutMs ?? 10_000,
    clock: systemClock, logger: pino({ level: 'silent' }),
  });
}

/** client-node's configuration as system:masters (for a Watch, say). */
export function labAdminConfig(lab: KubeLab): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(lab.adminKubeconfig);
  return kc;
}

/** client-node's core API as system:masters. */
export function labAdminCore(lab: KubeLab): CoreV1Api {
  return labAdminConfig(lab).makeApiClient(CoreV1Api);
}
