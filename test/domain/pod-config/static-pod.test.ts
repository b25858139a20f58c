import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { decodePodsFromUrl, decodeStaticPod, staticPodName, type ManifestOrigin } from '../../../src/domain/pod-config/static-pod.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const fixture = (name: string): unknown => YAML.parse(readFileSync(new URL(`../../fixtures/manifests/${name}`, import.meta.url), 'utf8'));
/** A fixture as the Pod it is written as (manifests omit the uid; the tests edit fields). */
const manifest = (name: string): Pod => structuredClone(fixture(name)) as Pod;
const fileOrigin = (path = '/etc/kubernetes/manifests/web.yaml', nodeName = 'Node-1'): ManifestOrigin => ({ source: 'file', origin: path, nodeName });

function decodeOk(doc: unknown, origin = fileOrigin()): Pod {
  const result = decodeStaticPod(doc, origin);
  if (!result.ok) throw new Error(`expected a pod, got: ${result.reason}`);
  return result.value;
}

describe('decodeStaticPod', () => {
  it('gives the same UID for the same manifest at the same path on the same node', () => {
    const a = decodeOk(fixture('web.yaml'));
    const b = decodeOk(fixture('web.yaml'));
    expect(a.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(b.metadata.uid).toBe(a.metadata.uid);
  });

  it('gives the same UID whatever the key order of the manifest', () => {
    const doc = fixture('web.yaml') as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(doc).reverse());
    expect(decodeOk(reordered).metadata.uid).toBe(decodeOk(doc).metadata.uid);
  });

  it.each([
    ['the image changes', (d: Pod) => { d.spec.containers[0]!.image = 'registry.example/web:1.3'; }],
    ['a label changes', (d: Pod) => { d.metadata.labels!['app'] = 'web2'; }],
    ['an annotation is added', (d: Pod) => { d.metadata.annotations = { note: 'x' }; }],
    ['an explicit default is written out differently', (d: Pod) => { d.spec.restartPolicy = 'Never'; }],
  ])('changes the UID when %s', (_what, edit) => {
    const doc = manifest('web.yaml');
    edit(doc);
    expect(decodeOk(doc).metadata.uid).not.toBe(decodeOk(fixture('web.yaml')).metadata.uid);
  });

  it('keeps the UID when a field is written out with its default value (the hash is over the defaulted pod)', () => {
    const doc = manifest('web.yaml');
    doc.spec.restartPolicy = 'Always';
    doc.spec.containers[0]!.imagePullPolicy = 'IfNotPresent';
    expect(decodeOk(doc).metadata.uid).toBe(decodeOk(fixture('web.yaml')).metadata.uid);
  });

  it.each([
    ['another path', fileOrigin('/etc/kubernetes/manifests/web-copy.yaml')],
    ['another node', fileOrigin(undefined, 'node-2')],
    ['the http source at a URL', { source: 'http', origin: 'http://127.0.0.1/pods', nodeName: 'Node-1' } as ManifestOrigin],
  ])('changes the UID for %s', (_what, origin) => {
    expect(decodeOk(fixture('web.yaml'), origin).metadata.uid).not.toBe(decodeOk(fixture('web.yaml')).metadata.uid);
  });

  it('keeps a UID the manifest sets itself', () => {
    const doc = manifest('web.yaml');
    doc.metadata.uid = 'fixed-uid';
    const pod = decodeOk(doc);
    expect(pod.metadata.uid).toBe('fixed-uid');
    expect(pod.metadata.annotations?.['kubernetes.io/config.hash']).toBe('fixed-uid');
  });

  it('suffixes the name with the lowercased node name, defaults the namespace and binds the pod to the node', () => {
    const pod = decodeOk(fixture('web.yaml'));
    expect(pod.metadata.name).toBe('web-node-1');
    expect(pod.metadata.namespace).toBe('default');
    expect(pod.spec.nodeName).toBe('Node-1');
    expect(pod.status?.phase).toBe('Pending');
    expect(staticPodName('etcd', 'MASTER.Example')).toBe('etcd-master.example');
  });

  it('keeps a namespace the manifest sets', () => {
    expect(decodeOk(fixture('worker.json')).metadata.namespace).toBe('jobs');
  });

  it('annotates the config hash (the UID) and the source, and keeps the manifest annotations', () => {
    const doc = manifest('web.yaml');
    doc.metadata.annotations = { team: 'a' };
    const pod = decodeOk(doc);
    expect(pod.metadata.annotations).toEqual({
      team: 'a',
      'kubernetes.io/config.hash': pod.metadata.uid,
      'kubernetes.io/config.source': 'file',
    });
  });

  it('adds the NoExecute toleration to file pods once, not to http pods', () => {
    const file = decodeOk(fixture('web.yaml'));
    expect(file.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    const doc = manifest('web.yaml');
    doc.spec.tolerations = [{ operator: 'Exists', effect: 'NoExecute' }];
    expect(decodeOk(doc).spec.tolerations).toHaveLength(1);
    const http = decodeOk(fixture('web.yaml'), { source: 'http', origin: 'http://x/', nodeName: 'n' });
    expect(http.spec.tolerations).toBeUndefined();
  });

  it('reads a quantity written as a number as its text, as Go\'s Quantity decodes one', () => {
    const doc = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { overhead: { cpu: 0.25 }, containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: 1000, memory: '1Gi' }, limits: { cpu: 1000 } } }] } };
    const pod = decodeOk(doc);
    expect(pod.spec.containers[0]!.resources).toEqual({ requests: { cpu: '1000', memory: '1Gi' }, limits: { cpu: '1000' } });
    expect(pod.spec.overhead).toEqual({ cpu: '0.25' });
  });

  it('applies the API server defaults', () => {
    const pod = decodeOk(fixture('web.yaml'));
    expect(pod.spec).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', enableServiceLinks: true });
    expect(pod.spec.containers.map((c) => c.imagePullPolicy)).toEqual(['IfNotPresent', 'Always']);
  });

  it.each([
    ['not an object', 'just text', /not an object/],
    ['no kind', { apiVersion: 'v1', metadata: { name: 'a' }, spec: { containers: [] } }, /Kind' is missing/],
    ['another kind', { apiVersion: 'apps/v1', kind: 'Deployment' }, /^kind: Unsupported value: "Deployment"/],
    ['a PodList in a file', fixture('pod-list.yaml'), /^kind: Unsupported value: "PodList"/],
    ['another apiVersion', { apiVersion: 'v2', kind: 'Pod' }, /^apiVersion: Unsupported value: "v2"/],
    ['no spec', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } }, /^spec: Required value/],
    ['containers not a list', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: 'x' } }, /^spec\.containers: must be a list/],
    // Found by the fuzz suite: the port's defaulting threw a TypeError on a string.
    ['a port that is not an object', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', ports: ['0'] }] } }, /^spec\.containers\[0\]\.ports\[0\]: must be an object/],
    ['a command word that is not a string', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', command: ['sh', 1] }] } }, /^spec\.containers\[0\]\.command\[1\]: must be a string/],
    ['labels not strings', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: { a: 1 } }, spec: { containers: [] } }, /^metadata\.labels/],
    // Found by the binary fuzz's nearly valid pods: the probe's defaulting threw a TypeError on a number.
    ['a probe that is not an object', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', readinessProbe: 11 }] } }, /^spec\.containers\[0\]\.readinessProbe: must be an object$/],
    ['a handler\'s httpGet that is not an object', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', lifecycle: { preStop: { httpGet: 'x' } } }] } }, /^spec\.containers\[0\]\.lifecycle\.preStop\.httpGet: must be an object$/],
    ['volumes that are not a list', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { volumes: 3, containers: [{ name: 'c', image: 'i' }] } }, /^spec\.volumes: must be a list$/],
    ['requests that are not a map', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: 5, limits: { cpu: '1' } } }] } }, /^spec\.containers\[0\]\.resources\.requests: must be a map of quantities$/],
    ['a fieldRef that is not an object', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { fieldRef: 'spec.nodeName' } }] }] } }, /^spec\.containers\[0\]\.env\[0\]\.valueFrom\.fieldRef: must be an object$/],
    ['tolerations that are not a list', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { tolerations: 'all', containers: [{ name: 'c', image: 'i' }] } }, /^spec\.tolerations: must be a list$/],
    ['a period that is not an integer', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', livenessProbe: { exec: { command: ['true'] }, periodSeconds: '10' } }] } }, /^spec\.containers\[0\]\.livenessProbe\.periodSeconds: must be an integer$/],
    ['a null in a list', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', env: [null] }] } }, /^spec\.containers\[0\]\.env\[0\]: must be an object$/],
    ['hostNetwork that is not a boolean', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { hostNetwork: 'yes', containers: [{ name: 'c', image: 'i' }] } }, /^spec\.hostNetwork: must be a boolean$/],
    ['a container without image', fixture('no-image.yaml'), /spec\.containers\[0\]\.image: Required value/],
    ['no name', { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: [{ name: 'c', image: 'i' }] } }, /^invalid pod: name is needed for the pod$/],
    ['a secret reference', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', envFrom: [{ secretRef: { name: 's' } }] }] } }, /^static pods may not reference secrets$/],
    ['a request that is not a quantity', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: 'lots' } } }] } }, /spec\.containers\[0\]\.resources\.requests\[cpu\]: Invalid value: "lots": quantities must match/],
  ])('rejects %s with a reason naming the problem', (_what, doc, reason) => {
    const result = decodeStaticPod(doc, fileOrigin());
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('reads a null as an absent field, as Go\'s decoder does', () => {
    const result = decodeStaticPod({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', labels: null },
      spec: { volumes: null, containers: [{ name: 'c', image: 'i', readinessProbe: null, resources: { limits: null }, command: null }] },
    }, fileOrigin());
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.spec.containers[0]).not.toHaveProperty('readinessProbe');
  });
});

describe('decodePodsFromUrl', () => {
  const url: ManifestOrigin = { source: 'http', origin: 'http://127.0.0.1:8080/pods', nodeName: 'node-1' };

  it('reads a single Pod', () => {
    const result = decodePodsFromUrl(fixture('web.yaml'), url);
    expect(result.ok && result.value.map((p) => p.metadata.name)).toEqual(['web-node-1']);
  });

  it('reads a PodList, each item treated as a static pod of the http source', () => {
    const result = decodePodsFromUrl(fixture('pod-list.yaml'), url);
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.map((p) => p.metadata.name)).toEqual(['one-node-1', 'two-node-1']);
    expect(result.value.every((p) => p.metadata.annotations?.['kubernetes.io/config.source'] === 'http')).toBe(true);
    expect(new Set(result.value.map((p) => p.metadata.uid)).size).toBe(2);
  });

  it('rejects the whole list when one item is invalid, naming the item', () => {
    const doc = structuredClone(fixture('pod-list.yaml')) as { items: Pod[] };
    doc.items[1]!.spec.containers[0]!.image = '';
    const result = decodePodsFromUrl(doc, url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('items[1].spec.containers[0].image: Required value');
  });
});
