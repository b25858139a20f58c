/**
 * The real binary with its kubelet server on 127.0.0.1 (a free port, anonymous and AlwaysAllow),
 * a read-only port, and one static pod `web` whose container `main` burns a little CPU each second
 * so its counters move: what the stats suites (/stats/summary, /metrics/resource|cadvisor) scrape.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startStaticPodKubelet, type StaticPodKubelet } from './daemon.js';

export interface ServingKubelet {
  kubelet: StaticPodKubelet;
  port: number;
  readOnlyPort: number;
  /** Stop the kubelet, remove its pods and directories. */
  dispose: () => Promise<void>;
}

export async function startServingKubeletWithBusyPod(opts: { endpoint: string; nodeName: string; prefix: string; config?: string[] }): Promise<ServingKubelet> {
  const port = await freePort();
  const readOnlyPort = await freePort();
  const certDir = mkdtempSync(join(tmpdir(), `${opts.prefix}pki-`));
  const kubelet = await startStaticPodKubelet({
    endpoint: opts.endpoint, nodeName: opts.nodeName, prefix: opts.prefix, ...(opts.config ? { config: opts.config } : {}),
    args: ['--enable-server=true', '--address=127.0.0.1', `--port=${port}`, `--read-only-port=${readOnlyPort}`, `--cert-dir=${certDir}`],
  });
  writeFileSync(join(kubelet.manifests, 'web.json'), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
    // Some CPU, then a tick, each second until SIGTERM: stats and logs to serve; not a wait of the test's.
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo tick; sleep 1 & wait $!; done"] }] },
  }));
  return {
    kubelet, port, readOnlyPort,
    dispose: async () => {
      await kubelet.dispose();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
