/**
 * run.clients in cluster mode (Go: cmd/kubelet/app/server.go buildKubeletClientConfig and
 * run()): from --kubeconfig (kubeconfig-file.ts), three clients over the same credentials (client
 * certificates, bearer tokens and token files, basic auth; exec plugins and auth-providers through
 * client-node), each with its own connections:
 * - main: kubeAPIQPS / kubeAPIBurst (50 / 100), client-side token bucket;
 * - events: eventRecordQPS / eventBurst (50 / 100);
 * - heartbeat: no rate limit, timeout min(nodeStatusUpdateFrequency, nodeLeaseDurationSeconds),
 *   re-openable (Go: closeAllConns on repeated heartbeat failures).
 * Differs from Go: eventRecordQPS 0 (Go: no limit) is treated the same way here: no limiter.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../ports/clock.js';
import type { ApiClients } from '../../ports/apiserver.js';
import { KubeApi } from './kube-api.js';
import { readKubeconfig } from './kubeconfig-file.js';
import { noRateLimit, tokenBucketLimiter } from './rate-limiter.js';
import { kubeletUserAgent } from './user-agent.js';

export interface ApiClientsOptions {
  kubeconfigPath: string;
  /** kubeAPIQPS / kubeAPIBurst; qps 0 turns the limit off (as client-go's QPS < 0 would). */
  qps: number;
  burst: number;
  eventQps: number;
  eventBurst: number;
  /** min(nodeStatusUpdateFrequency, nodeLeaseDurationSeconds) in ms. */
  heartbeatTimeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/** The heartbeat client's timeout as Go computes it (also in nodeSideSettings). */
export { heartbeatTimeoutMsFor as heartbeatTimeoutMs } from '../../domain/node-status/heartbeat-timeout.js';

export function createApiClients(opts: ApiClientsOptions): ApiClients {
  const loadConfig = () => readKubeconfig(opts.kubeconfigPath);
  const limiter = (qps: number, burst: number) => (qps > 0 ? tokenBucketLimiter(qps, Math.max(1, burst), opts.clock) : noRateLimit);
  const client = { clock: opts.clock, userAgent: kubeletUserAgent() };
  const main = new KubeApi({ loadConfig, limiter: limiter(opts.qps, opts.burst), timeoutMs: null, ...client });
  const events = new KubeApi({ loadConfig, limiter: limiter(opts.eventQps, opts.eventBurst), timeoutMs: null, ...client });
  const heartbeat = new KubeApi({ loadConfig, limiter: noRateLimit, timeoutMs: opts.heartbeatTimeoutMs, ...client });
  const log = opts.logger;
  log.info({ server: main.server, qps: opts.qps, burst: opts.burst, heartbeatTimeoutMs: opts.heartbeatTimeoutMs }, 'Built API server clients');
  return {
    main,
    events,
    heartbeat: {
      getNode: (n) => heartbeat.getNode(n),
      createNode: (n) => heartbeat.createNode(n),
      patchNode: (n, p) => heartbeat.patchNode(n, p),
      patchNodeStatus: (n, s) => heartbeat.patchNodeStatus(n, s),
      getLease: (ns, n) => heartbeat.getLease(ns, n),
      createLease: (l) => heartbeat.createLease(l),
      updateLease: (l) => heartbeat.updateLease(l),
      reopen: () => {
        log.info('Closing all connections to the API server after repeated heartbeat failures');
        try {
          heartbeat.reopen();
        } catch (err) {
          // A kubeconfig that became unreadable must not stop the heartbeats: keep the old client.
          log.warn({ err }, 'Could not reload the kubeconfig, keeping the current connections');
        }
      },
    },
    server: main.server,
    reload: () => {
      for (const client of [main, events, heartbeat]) client.reopen();
      log.info('API clients reopened on the current credentials');
    },
    close: () => {
      for (const client of [main, events, heartbeat]) client.close();
    },
  };
}
