/**
 * The requests the API server has served, by verb and resource (apiserver_request_total from its
 * /metrics, summed over codes and scopes), read as the lab's admin. With one kubelet on the lab and
 * its pods created with a nodeName, a burst's difference is mostly that kubelet's own requests.
 */
import { request as httpsRequest } from 'node:https';
import { adminTls, type KubeLab } from '../test/support/kube-lab-up.js';

export async function apiserverRequests(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>): Promise<Map<string, number>> {
  const url = new URL('/metrics', lab.server);
  const text = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname, agent: false, ...adminTls(lab) }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  const served = new Map<string, number>();
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (labels['component'] !== 'apiserver') continue;
    const key = `${labels['verb']}.${labels['resource']}${labels['subresource'] ? `/${labels['subresource']}` : ''}`;
    served.set(key, (served.get(key) ?? 0) + Number(m[2]));
  }
  return served;
}
