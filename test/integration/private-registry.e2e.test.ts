/**
 * Image pull credentials end to end, on the real control plane and containerd, against a real
 * private registry (private-registry.ts: docker-registry with TLS and htpasswd, an image pushed with
 * skopeo). A pod whose imagePullSecrets hold the registry's credentials runs; one without gets
 * ErrImagePull with the registry's 401 in its status and its Failed event; a pod of a ServiceAccount
 * carrying the secret runs (the API server's admission copies it into the pod, the kubelet reads the
 * pod alone); a credential provider plugin (a shell script) supplies the credentials of a fourth pod.
 * The kubelet's event log names the secret and the plugin a pull used, and never holds the password.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { privateRegistryPart, startPrivateRegistry, type PrivateRegistry } from '../support/private-registry.js';
import { allOf, containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();

describeNeeding(allOf(kubeLabPartFor(endpoint), privateRegistryPart()), 'image pull credentials against a private registry (TLS, htpasswd), containerd runtime', () => {
  let n: LabNode;
  let registry: PrivateRegistry;
  let pluginLog = '';

  const image = (repo: string) => `${registry.host}/${repo}/busybox:1.0`;
  const container = (repo: string) => ({ name: 'c', image: image(repo), imagePullPolicy: 'Always', command: ['sh', '-c', SLEEP] });
  const running = (name: string) => n.whileUp(`${name} Running`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Running' ? p : undefined;
  }, 60_000);
  const eventLog = () => readdirSync(join(n.dir, 'root', 'events')).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(n.dir, 'root', 'events', f), 'utf8')).join('');

  beforeAll(async () => {
    registry = await startPrivateRegistry({ hostsDir: process.env.KUBELET_IT_CRI_REGISTRY_CONFIG! });
    const archive = join(process.env.KUBELET_IT_CRI_LAB!, 'images', 'busybox.tar');
    registry.push(archive, 'private/busybox:1.0');
    registry.push(archive, 'viaplugin/busybox:1.0');
    n = await startLabNode({
      name: 'kts-pullcreds', endpoint,
      prepare: (dir) => {
        // The plugin answers for the viaplugin repository only, and logs each request it gets.
        mkdirSync(join(dir, 'plugins'));
        pluginLog = join(dir, 'plugin-requests.log');
        const response = JSON.stringify({
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1', kind: 'CredentialProviderResponse', cacheKeyType: 'Registry', cacheDuration: '0s',
          auth: { [registry.host]: { username: registry.username, password: registry.password } },
        });
        writeFileSync(join(dir, 'plugins', 'test-registry'), `#!/bin/sh\ncat >> ${pluginLog}\necho >> ${pluginLog}\necho '${response}'\n`);
        chmodSync(join(dir, 'plugins', 'test-registry'), 0o755);
        writeFileSync(join(dir, 'credential-providers.yaml'), [
          'apiVersion: kubelet.config.k8s.io/v1', 'kind: CredentialProviderConfig', 'providers:',
          '- name: test-registry', `  matchImages: ["${registry.host}/viaplugin"]`, '  defaultCacheDuration: 1m', '  apiVersion: credentialprovider.kubelet.k8s.io/v1', '',
        ].join('\n'));
      },
      extraArgs: (dir) => [`--image-credential-provider-config=${join(dir, 'credential-providers.yaml')}`, `--image-credential-provider-bin-dir=${join(dir, 'plugins')}`],
    });
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64');
    await n.create(`/api/v1/namespaces/${n.ns}/secrets`, {
      metadata: { name: 'regcred' }, type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [`https://${registry.host}`]: { auth } } })).toString('base64') },
    });
    await n.create(`/api/v1/namespaces/${n.ns}/serviceaccounts`, { metadata: { name: 'puller' }, imagePullSecrets: [{ name: 'regcred' }] });
  }, 180_000);

  afterAll(async () => {
    await n?.dispose();
    await registry?.stop();
  }, 120_000);

  it('a pod with the registry\'s secret in imagePullSecrets pulls its image and runs', async () => {
    await n.createPod('with-secret', { imagePullSecrets: [{ name: 'regcred' }], containers: [container('private')] });
    const pod = await running('with-secret');
    expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
  }, 90_000);

  it('a pod without it gets ErrImagePull with the registry\'s 401, in its status and its Failed event', async () => {
    await n.createPod('without-secret', { containers: [container('private')] });
    const waiting = await n.whileUp('without-secret ErrImagePull', async () => {
      const w = (await n.pod('without-secret'))?.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'ErrImagePull' ? w : undefined;
    }, 60_000);
    expect(waiting.message).toMatch(/401 Unauthorized/);
    const failed = await n.whileUp('a Failed event', async () => (await n.events({ name: 'without-secret' })).find((e) => e.reason === 'Failed' && /401/.test(e.message ?? '')), 30_000);
    expect(failed.message).toContain(`Failed to pull image "${image('private')}"`);
  }, 90_000);

  it('a pod of a ServiceAccount with the secret runs: admission put it in the pod, the kubelet reads the pod', async () => {
    const created: LabPod = await n.createPod('via-service-account', { serviceAccountName: 'puller', containers: [container('private')] });
    expect(created.spec['imagePullSecrets']).toEqual([{ name: 'regcred' }]);
    await running('via-service-account');
  }, 90_000);

  it('a credential provider plugin supplies the credentials of a pod without secrets', async () => {
    await n.createPod('via-plugin', { containers: [container('viaplugin')] });
    await running('via-plugin');
    const requests = readFileSync(pluginLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { image: string });
    expect(requests).toContainEqual({ kind: 'CredentialProviderRequest', apiVersion: 'credentialprovider.kubelet.k8s.io/v1', image: `${registry.host}/viaplugin/busybox` });
    // matchImages keeps it out of the other repository's pulls.
    expect(requests.every((r) => r.image.includes('/viaplugin/'))).toBe(true);
  }, 90_000);

  it('the event log names the secret and the plugin a pull used, and never holds the password', async () => {
    // The journal writes its lines in batches: the last pull's record may reach the file a moment
    // after its pod is seen Running.
    const log = await vi.waitFor(() => {
      const text = eventLog();
      expect(text).toContain(`"pulledWith":"secret ${n.ns}/regcred"`);
      expect(text).toContain('"pulledWith":"plugin test-registry"');
      return text;
    }, { timeout: 5000, interval: 50 });
    expect(log).not.toContain(registry.password);
    expect(log).not.toContain(Buffer.from(`${registry.username}:${registry.password}`).toString('base64'));
  });
});
