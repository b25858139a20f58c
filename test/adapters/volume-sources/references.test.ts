import { describe, expect, it } from 'vitest';
import { configMapNames, secretNames } from '../../../src/adapters/volume-sources/references.js';
import { pod } from './helpers.js';

const everything = pod('a', {
  imagePullSecrets: [{ name: 'pull' }, { name: '' }],
  initContainers: [{ name: 'init', image: 'i', envFrom: [{ configMapRef: { name: 'cm-init-from' } }, { secretRef: { name: 's-init-from' } }] }],
  containers: [{
    name: 'c',
    image: 'i',
    env: [
      { name: 'A', valueFrom: { configMapKeyRef: { name: 'cm-key', key: 'k' } } },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's-key', key: 'k' } } },
      { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'D', value: 'plain' },
    ],
  }],
  ephemeralContainers: [{ name: 'debug', image: 'i', envFrom: [{ secretRef: { name: 's-ephemeral' } }] }],
  volumes: [
    { name: 'v1', configMap: { name: 'cm-volume' } },
    { name: 'v2', secret: { secretName: 's-volume' } },
    { name: 'v3', projected: { sources: [{ configMap: { name: 'cm-projected' } }, { secret: { name: 's-projected' } }, { serviceAccountToken: { path: 't' } }] } },
    { name: 'v4', csi: { driver: 'd', nodePublishSecretRef: { name: 's-csi' } } },
    { name: 'v5', azureFile: { secretName: 's-azure', shareName: 'x' } },
    { name: 'v6', rbd: { monitors: [], image: 'x', secretRef: { name: 's-rbd' } } },
    { name: 'v7', emptyDir: {} },
  ],
});

describe('configMapNames', () => {
  it('finds the ConfigMaps of env, envFrom, configMap and projected volumes in every container', () => {
    expect([...configMapNames(everything)].sort()).toEqual(['cm-init-from', 'cm-key', 'cm-projected', 'cm-volume']);
  });

  it('finds none in a pod without references', () => {
    expect(configMapNames(pod('b')).size).toBe(0);
  });
});

describe('secretNames', () => {
  it('finds imagePullSecrets, env and envFrom refs in every container kind, and secret-bearing volumes (empty names skipped)', () => {
    expect([...secretNames(everything)].sort()).toEqual(['pull', 's-azure', 's-csi', 's-ephemeral', 's-init-from', 's-key', 's-projected', 's-rbd', 's-volume']);
  });
});
