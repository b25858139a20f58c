import { describe, expect, it } from 'vitest';
import type { Container } from '../../../src/domain/pod/types.js';
import { containerSpecChanged, hashContainer, hashContainerWithoutResources } from '../../../src/domain/runtime/container-hash.js';
import { containerInfoFromRuntime, newContainerAnnotations } from '../../../src/domain/runtime/labels.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const web: Container = {
  name: 'web', image: 'nginx:1.27',
  resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
  resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
};
const bigger: Container = { ...web, resources: { requests: { cpu: '500m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } } };
const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [web] } };

/** The hashes a container started from `spec` carries, read back as the runtime status does. */
function startedFrom(spec: Container, opts: { legacy?: boolean } = {}) {
  const annotations = newContainerAnnotations(spec, pod, 0);
  if (opts.legacy) delete annotations['io.kubernetes.container.hashWithoutResources'];
  const info = containerInfoFromRuntime({}, annotations);
  return { hash: info.hash, ...(info.hashWithoutResources !== undefined ? { hashWithoutResources: info.hashWithoutResources } : {}) };
}

describe('hashContainerWithoutResources', () => {
  it('ignores resources and resizePolicy but sees any other change', () => {
    expect(hashContainerWithoutResources(bigger)).toBe(hashContainerWithoutResources(web));
    expect(hashContainerWithoutResources({ ...web, resizePolicy: [] })).toBe(hashContainerWithoutResources(web));
    expect(hashContainerWithoutResources({ ...web, image: 'nginx:1.28' })).not.toBe(hashContainerWithoutResources(web));
    expect(hashContainer(bigger)).not.toBe(hashContainer(web));
  });
});

describe('containerSpecChanged', () => {
  it('does not see a resource change on a container that carries the resource-free hash', () => {
    expect(containerSpecChanged(bigger, startedFrom(web))).toBe(false);
    expect(containerSpecChanged({ ...web, image: 'nginx:1.28' }, startedFrom(web))).toBe(true);
  });

  it('compares a container started without the resource-free hash on the full hash, so an unchanged one is kept', () => {
    const legacy = startedFrom(web, { legacy: true });
    expect(legacy.hashWithoutResources).toBeUndefined();
    expect(containerSpecChanged(web, legacy)).toBe(false);
    expect(containerSpecChanged(bigger, legacy)).toBe(true);
  });

  it('reads an unparsable resource-free hash as absent', () => {
    const info = containerInfoFromRuntime({}, { 'io.kubernetes.container.hash': 'ff', 'io.kubernetes.container.hashWithoutResources': 'zz' });
    expect(info.hashWithoutResources).toBeUndefined();
    expect(info.hash).toBe(255);
  });
});
