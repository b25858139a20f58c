import { describe, expect, it } from 'vitest';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { projectedPayload, type ProjectedInputs } from '../../../src/domain/volumes/projected-payload.js';
import type { KeyedData, ProjectedVolumeSource } from '../../../src/domain/volumes/sources.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'x:1' }] } };
const kd = (data: Record<string, string>): KeyedData => ({ data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)])) });

const inputs: ProjectedInputs = {
  pod,
  secrets: new Map([['creds', kd({ user: 'u', shared: 'from-secret' })]]),
  configMaps: new Map([['settings', kd({ mode: 'fast', shared: 'from-configmap' })], ['gone', undefined]]),
  tokens: new Map([['token', 'eyJ.token']]),
};

const source: ProjectedVolumeSource = {
  sources: [
    { secret: { name: 'creds' } },
    { configMap: { name: 'settings', items: [{ key: 'mode', path: 'conf/mode', mode: 0o400 }, { key: 'shared', path: 'shared' }] } },
    { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
    { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
  ],
};

function thrown(fn: () => unknown): KubeletError {
  try { fn(); } catch (err) { if (err instanceof KubeletError) return err; throw err; }
  throw new Error('expected a KubeletError');
}

describe('projectedPayload', () => {
  it('merges secret, configMap, downwardAPI and token sources in order, each with its items', () => {
    const payload = projectedPayload(source, inputs);
    expect([...payload].map(([p, f]) => [p, f.content.toString(), f.mode.toString(8)]).sort()).toEqual([
      ['conf/mode', 'fast', '400'],
      ['labels', 'app="web"', '644'],
      ['shared', 'from-configmap', '644'],
      ['token', 'eyJ.token', '644'],
      ['user', 'u', '644'],
    ]);
  });

  it('lets a later source overwrite an earlier one\'s path', () => {
    const reversed: ProjectedVolumeSource = { sources: [source.sources![1]!, source.sources![0]!] };
    expect(projectedPayload(reversed, inputs).get('shared')?.content.toString()).toBe('from-secret');
  });

  it('gives every source the projected defaultMode', () => {
    const payload = projectedPayload({ ...source, defaultMode: 0o440 }, inputs);
    expect(payload.get('user')?.mode).toBe(0o440);
    expect(payload.get('labels')?.mode).toBe(0o440);
    expect(payload.get('token')?.mode).toBe(0o440);
    expect(payload.get('conf/mode')?.mode).toBe(0o400);
  });

  it('makes the token 0600 when the pod has an fsGroup, leaving other files alone', () => {
    const payload = projectedPayload(source, { ...inputs, fsGroup: 2000 });
    expect(payload.get('token')?.mode).toBe(0o600);
    expect(payload.get('token')?.fsUser).toBeUndefined();
    expect(payload.get('user')?.mode).toBe(0o644);
  });

  it('makes the token 0600 and gives it to the fsUser when all containers run as one user', () => {
    const payload = projectedPayload(source, { ...inputs, fsUser: 1000 });
    expect(payload.get('token')).toMatchObject({ mode: 0o600, fsUser: 1000 });
    expect(payload.get('user')?.fsUser).toBeUndefined();
  });

  it('is empty for an optional source whose object is missing', () => {
    expect(projectedPayload({ sources: [{ configMap: { name: 'gone', optional: true } }] }, inputs).size).toBe(0);
  });

  it('reports every failing source in one error and writes nothing', () => {
    const err = thrown(() => projectedPayload({
      sources: [
        { configMap: { name: 'gone' } },
        { secret: { name: 'creds', items: [{ key: 'nope', path: 'n' }] } },
        { downwardAPI: { items: [{ path: 'ip', fieldRef: { fieldPath: 'status.podIP' } }] } },
        { configMap: { name: 'settings' } },
      ],
    }, inputs));
    expect(err.code).toBe('KLT_ERR_API_NOT_FOUND');
    expect(err.message).toBe('[configmap "gone" not found, references non-existent secret key: nope, unsupported fieldPath: status.podIP]');
  });

  it('fails when the caller supplied no token for a token source', () => {
    const err = thrown(() => projectedPayload({ sources: [{ serviceAccountToken: { path: 'other' } }] }, inputs));
    expect(err.code).toBe('KLT_ERR_INTERNAL');
  });

  it('refuses a token path Go would refuse', () => {
    const err = thrown(() => projectedPayload({ sources: [{ serviceAccountToken: { path: '../token' } }] }, { ...inputs, tokens: new Map([['../token', 't']]) }));
    expect([err.code, err.message]).toEqual(['KLT_ERR_POD_SPEC_INVALID', "invalid path: must not contain '..': ../token"]);
  });
});
