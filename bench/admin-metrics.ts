/**
 * A /metrics page read as the lab's admin: the API server's, or a kubelet server's on 127.0.0.1
 * (both kubelets authorise their server's readers through the API server), and the counters of one
 * metric in it. A kubelet server starts after healthz and the Node, so a read right after start-up
 * may find it not listening yet: refused connections are retried for 10 s.
 */
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { adminTls, type KubeLab } from '../test/support/kube-lab-up.js';
import { sleep } from './static-pod-fleet.js';

/** `selfSigned`: a kubelet server's certificate, self-signed at its start, is not checked. */
export async function adminMetrics(lab: Pick<KubeLab, 'dir' | 'ca'>, url: URL, { selfSigned = false } = {}): Promise<string> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      return await getOnce(lab, url, selfSigned);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || performance.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

/** Each sample of `metric` in a metrics page: its labels by name, and its value. */
export function samplesOf(text: string, metric: string): { labels: Record<string, string>; value: number }[] {
  const samples: { labels: Record<string, string>; value: number }[] = [];
  for (const m of text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\d+)`, 'gm'))) {
    samples.push({ labels: Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!])), value: Number(m[2]) });
  }
  return samples;
}

function getOnce(lab: Pick<KubeLab, 'dir' | 'ca'>, url: URL, selfSigned: boolean): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname, agent: false, ...adminTls(lab), rejectUnauthorized: !selfSigned }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}
