/**
 * The kubelet's API client against the real kube-apiserver (the run's lab, v1.26): ALPN gives h2, as
 * client-go gets it, and every request and watch of one client is a stream on one TLS connection.
 * The fallback to HTTP/1.1 and a session's end are in test/adapters/apiserver/rest-client-h2.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readKubeconfig } from '../../src/adapters/apiserver/kubeconfig-file.js';
import { h2SettingsFromEnv } from '../../src/adapters/apiserver/h2-session.js';
import { RestClient } from '../../src/adapters/apiserver/rest-client.js';
import { readWatchEvents } from '../../src/adapters/apiserver/watch-stream.js';
import { kubeLab, kubeLabPart, type KubeLab } from '../support/kube-lab.js';
import { describeNeeding } from '../support/real-parts.js';

/** This process's established TCP connections to `port`. */
function connectionsTo(port: string): number {
  const lines = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' }).split('\n');
  return lines.filter((l) => l.includes(`pid=${process.pid},`)).length;
}

describeNeeding(kubeLabPart(), 'The API client on the real kube-apiserver', () => {
  let lab: KubeLab;
  let rest: RestClient;

  beforeAll(async () => {
    lab = await kubeLab();
    rest = new RestClient(readKubeconfig(lab.adminKubeconfig), { now: () => Date.now() }, 'kubelet-ts/h2-test', h2SettingsFromEnv({}));
  }, 300_000);
  afterAll(() => rest?.close());

  it('negotiates h2 and carries concurrent requests and a watch on one connection', async () => {
    expect(await rest.protocol()).toBe('h2');
    const list = await rest.request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces');
    const watch = await rest.stream('/api/v1/namespaces', { query: { watch: true, resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true, fieldSelector: 'metadata.name=default' } });
    const events: string[] = [];
    readWatchEvents(watch, { onEvent: (type) => events.push(type), onEnd: () => {} });
    const answers = await Promise.all(Array.from({ length: 30 }, () => rest.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default')));
    expect(answers.map((a) => a.metadata.name)).toEqual(Array(30).fill('default'));
    expect(connectionsTo(new URL(lab.server).port)).toBe(1);
    watch.destroy();
    // A stopped watch is a reset stream, not a closed connection: the next request reuses it.
    await rest.request('GET', '/api/v1/namespaces/default');
    expect(connectionsTo(new URL(lab.server).port)).toBe(1);
  });
});
