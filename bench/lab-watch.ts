/**
 * A watch on the real control plane's API server (../shared/lab/kube) as system:masters: each event
 * handed over as it arrives, so a figure is timed when the API server tells, not at the next poll.
 */
import { request } from 'node:https';
import { adminTls, type KubeLab } from '../test/support/kube-lab-up.js';

export interface WatchEvent<T> { type: string; object: T }

/** Watches `path` (a list path, `watch=1` added); resolves once the API server has answered, with its stop. */
export function labWatch<T>(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, path: string, onEvent: (event: WatchEvent<T>) => void): Promise<{ stop(): void }> {
  const url = new URL(path, lab.server);
  url.searchParams.set('watch', '1');
  return new Promise((done, fail) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', agent: false, ...adminTls(lab),
      headers: { accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) {
        fail(new Error(`watch ${path}: ${res.statusCode}`));
        res.resume();
        return;
      }
      let buffered = '';
      // Decoded as a stream: a character split across two chunks stays whole.
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buffered += d;
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
        }
      });
      let stopped = false;
      res.on('error', () => undefined);
      // The API server ends a watch at its request timeout; a bench that waits on events must hear of it.
      res.on('end', () => {
        if (!stopped) process.stderr.write(`lab-watch: the API server ended the watch on ${path}\n`);
      });
      done({ stop: () => { stopped = true; req.destroy(); } });
    });
    req.on('error', fail);
    req.end();
  });
}
