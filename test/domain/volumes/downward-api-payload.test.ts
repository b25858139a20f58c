import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { downwardApiPayload, downwardApiVolumeFieldValue } from '../../../src/domain/volumes/downward-api-payload.js';

const pod: Pod = {
  metadata: {
    name: 'web', namespace: 'shop', uid: 'uid-1',
    labels: { tier: 'front', app: 'web' },
    annotations: { 'example.com/Note': 'say "hi"' },
  },
  spec: {
    nodeName: 'node-a',
    containers: [{ name: 'app', image: 'x:1', resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '128Mi' } } }],
    initContainers: [{ name: 'setup', image: 'x:1', resources: { limits: { cpu: '1' } } }],
  },
};

function thrown(fn: () => unknown): KubeletError {
  try { fn(); } catch (err) { if (err instanceof KubeletError) return err; throw err; }
  throw new Error('expected a KubeletError');
}

const text = (payload: Map<string, { content: Buffer }>, path: string) => payload.get(path)?.content.toString();

describe('downwardApiPayload', () => {
  it('writes metadata fields, with labels and annotations as Go\'s FormatMap (sorted key="value" lines)', () => {
    const payload = downwardApiPayload({
      items: [
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } },
        { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: 'meta/annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
      ],
    }, pod);
    expect(text(payload, 'name')).toBe('web');
    expect(text(payload, 'ns')).toBe('shop');
    expect(text(payload, 'uid')).toBe('uid-1');
    expect(text(payload, 'labels')).toBe('app="web"\ntier="front"');
    expect(text(payload, 'meta/annotations')).toBe('example.com/Note="say \\"hi\\""');
  });

  it('reads one label or annotation through a subscript (empty when absent)', () => {
    const payload = downwardApiPayload({
      items: [
        { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
        { path: 'note', fieldRef: { fieldPath: "metadata.annotations['example.com/Note']" } },
        { path: 'none', fieldRef: { fieldPath: "metadata.labels['absent']" } },
      ],
    }, pod);
    expect([text(payload, 'tier'), text(payload, 'note'), text(payload, 'none')]).toEqual(['front', 'say "hi"', '']);
  });

  it('gives each file its mode, or defaultMode, or 0644', () => {
    const items = [{ path: 'a', fieldRef: { fieldPath: 'metadata.name' }, mode: 0o400 }, { path: 'b', fieldRef: { fieldPath: 'metadata.name' } }];
    expect([...downwardApiPayload({ items }, pod).values()].map((f) => f.mode)).toEqual([0o400, 0o644]);
    expect([...downwardApiPayload({ items, defaultMode: 0o440 }, pod).values()].map((f) => f.mode)).toEqual([0o400, 0o440]);
  });

  it('writes container resources with the divisor, rounding up, cpu in millicores', () => {
    const payload = downwardApiPayload({
      items: [
        { path: 'cpu_req', resourceFieldRef: { containerName: 'app', resource: 'requests.cpu', divisor: '1m' } },
        { path: 'cpu_req_cores', resourceFieldRef: { containerName: 'app', resource: 'requests.cpu' } },
        { path: 'mem_limit', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
        { path: 'init_cpu', resourceFieldRef: { containerName: 'setup', resource: 'limits.cpu', divisor: '1m' } },
      ],
    }, pod);
    expect([text(payload, 'cpu_req'), text(payload, 'cpu_req_cores'), text(payload, 'mem_limit'), text(payload, 'init_cpu')]).toEqual(['250', '1', '128', '1000']);
  });

  it('falls back to node allocatable for a limit the container leaves unset', () => {
    const payload = downwardApiPayload({
      items: [
        { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
        { path: 'eph', resourceFieldRef: { containerName: 'app', resource: 'limits.ephemeral-storage', divisor: '1Gi' } },
      ],
    }, pod, { nodeAllocatable: { cpu: '4', 'ephemeral-storage': '10Gi' } });
    expect([text(payload, 'cpu'), text(payload, 'eph')]).toEqual(['4000', '10']);
  });

  it.each([
    ['status.podIP', 'unsupported fieldPath: status.podIP'],
    ['spec.nodeName', 'unsupported fieldPath: spec.nodeName'],
    ['spec.serviceAccountName', 'unsupported fieldPath: spec.serviceAccountName'],
    ['status.hostIP', 'unsupported fieldPath: status.hostIP'],
    ["metadata.name['x']", 'fieldPath "metadata.name[\'x\']" does not support subscript'],
  ])('refuses the fieldPath %j as Go\'s volume does', (fieldPath, message) => {
    const err = thrown(() => downwardApiPayload({ items: [{ path: 'f', fieldRef: { fieldPath } }] }, pod));
    expect([err.code, err.message]).toEqual(['KLT_ERR_POD_SPEC_INVALID', message]);
  });

  it('refuses a subscript that is not a qualified name', () => {
    const err = thrown(() => downwardApiVolumeFieldValue("metadata.labels['-bad-']", pod));
    expect(err.code).toBe('KLT_ERR_POD_SPEC_INVALID');
    expect(err.message).toMatch(/^invalid key subscript in metadata\.labels\['-bad-'\]: /);
  });

  it('refuses a resourceFieldRef whose container is not in the pod, with Go\'s message', () => {
    const err = thrown(() => downwardApiPayload({ items: [{ path: 'x', resourceFieldRef: { containerName: 'ghost', resource: 'limits.cpu' } }] }, pod));
    expect([err.code, err.message]).toEqual(['KLT_ERR_POD_SPEC_INVALID', 'container ghost not found']);
  });

  it('refuses an unsupported resource with the resource helper\'s error', () => {
    const err = thrown(() => downwardApiPayload({ items: [{ path: 'x', resourceFieldRef: { containerName: 'app', resource: 'limits.gpu' } }] }, pod));
    expect(err.code).toBe('KLT_ERR_CONTAINER_CONFIG');
  });

  it('reports every failing item in one aggregate error, in item order', () => {
    const err = thrown(() => downwardApiPayload({
      items: [
        { path: 'ok', fieldRef: { fieldPath: 'metadata.name' } },
        { path: '/abs', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'ip', fieldRef: { fieldPath: 'status.podIP' } },
      ],
    }, pod));
    expect(err.message).toBe('[invalid path: must be relative path: /abs, unsupported fieldPath: status.podIP]');
    expect(err.code).toBe('KLT_ERR_POD_SPEC_INVALID');
  });

  it('writes an empty file for an item with neither ref', () => {
    expect(text(downwardApiPayload({ items: [{ path: 'empty' }] }, pod), 'empty')).toBe('');
  });
});
