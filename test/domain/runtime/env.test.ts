import { describe, expect, it } from 'vitest';
import { expandCommandAndArgs, makeEnvironmentVariables, type EnvContext } from '../../../src/domain/runtime/env.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

function podWith(container: Container): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', labels: { app: 'web', tier: 'front' }, annotations: { note: 'hi "there"' } },
    spec: { nodeName: 'node-a', serviceAccountName: 'sa', containers: [container] },
  };
}

const ctx: EnvContext = { podIPs: ['10.1.0.5', 'fd00::5'], hostIPs: ['192.168.1.10'] };

describe('makeEnvironmentVariables', () => {
  it('expands $(VAR) from earlier entries and service variables, keeping unknown references', () => {
    const c: Container = {
      name: 'app', image: 'x:1',
      env: [
        { name: 'A', value: 'a' },
        { name: 'B', value: '$(A)-b' },
        { name: 'C', value: '$(LATER)-$(SVC_HOST)' },
        { name: 'LATER', value: 'late' },
        { name: 'D', value: '$$(A)' },
      ],
    };
    const env = makeEnvironmentVariables(podWith(c), c, { ...ctx, serviceEnv: new Map([['SVC_HOST', '10.0.0.9'], ['A', 'svc-a']]) });
    expect(env).toEqual([
      { name: 'A', value: 'a' },
      { name: 'B', value: 'a-b' },
      { name: 'C', value: '$(LATER)-10.0.0.9' },
      { name: 'LATER', value: 'late' },
      { name: 'D', value: '$(A)' },
      { name: 'SVC_HOST', value: '10.0.0.9' },
    ]);
  });

  it.each([
    ['metadata.name', 'web'],
    ['metadata.namespace', 'shop'],
    ['metadata.uid', 'uid-1'],
    ['spec.nodeName', 'node-a'],
    ['spec.serviceAccountName', 'sa'],
    ['status.podIP', '10.1.0.5'],
    ['status.podIPs', '10.1.0.5,fd00::5'],
    ['status.hostIP', '192.168.1.10'],
    ["metadata.labels['tier']", 'front'],
    ["metadata.labels['missing']", ''],
    ["metadata.annotations['note']", 'hi "there"'],
    ['metadata.labels', 'app="web"\ntier="front"'],
    ['spec.terminationGracePeriodSeconds', '30'],
  ])('resolves fieldRef %s', (fieldPath, expected) => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'V', valueFrom: { fieldRef: { fieldPath } } }] };
    expect(makeEnvironmentVariables(podWith(c), c, ctx)).toEqual([{ name: 'V', value: expected }]);
  });

  it('rejects an unsupported fieldRef with KLT_ERR_CONTAINER_CONFIG', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'V', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }] };
    expect(() => makeEnvironmentVariables(podWith(c), c, ctx)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
  });

  it.each([
    ['limits.cpu', undefined, '2'],
    ['limits.cpu', '1m', '1500'],
    ['requests.cpu', '1m', '250'],
    ['requests.cpu', undefined, '1'],
    ['limits.memory', undefined, '536870912'],
    ['limits.memory', '1Mi', '512'],
    ['requests.memory', '1Mi', '128'],
  ])('resolves resourceFieldRef %s with divisor %s', (resource, divisor, expected) => {
    const c: Container = {
      name: 'app', image: 'x:1',
      resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '1500m', memory: '512Mi' } },
      env: [{ name: 'V', valueFrom: { resourceFieldRef: { resource, ...(divisor ? { divisor } : {}) } } }],
    };
    expect(makeEnvironmentVariables(podWith(c), c, ctx)[0]?.value).toBe(expected);
  });

  it('uses node allocatable for a limit the container does not set', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'V', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Gi' } } }] };
    expect(makeEnvironmentVariables(podWith(c), c, { ...ctx, nodeAllocatable: { memory: '8Gi', cpu: '4' } })[0]?.value).toBe('8');
  });

  it('uses the pod-level limits (PodLevelResources) for cpu and memory a container does not limit, the node\'s for the rest', () => {
    const c: Container = { name: 'app', image: 'x:1', env: ['limits.memory', 'limits.cpu', 'limits.ephemeral-storage'].map((resource, i) => ({ name: `V${i}`, valueFrom: { resourceFieldRef: { resource } } })) };
    const pod = podWith(c);
    pod.spec.resources = { limits: { memory: '64Mi', cpu: '500m' } };
    const values = makeEnvironmentVariables(pod, c, { ...ctx, nodeAllocatable: { memory: '8Gi', cpu: '4', 'ephemeral-storage': '10Gi' } }).map((e) => e.value);
    expect(values).toEqual(['67108864', '1', String(10 * 2 ** 30)]);
    pod.spec.resources = { limits: { memory: '0' } };
    expect(makeEnvironmentVariables(pod, c, { ...ctx, nodeAllocatable: { memory: '8Gi', cpu: '4', 'ephemeral-storage': '10Gi' } })[0]?.value).toBe(String(8 * 2 ** 30));
  });

  it('reads configMap and secret keys through the lookup, skipping optional missing ones', () => {
    const c: Container = {
      name: 'app', image: 'x:1',
      envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }],
      env: [
        { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
        { name: 'OPTIONAL', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k', optional: true } } },
      ],
    };
    const lookup = {
      configMap: (ns: string, name: string) => (ns === 'shop' && name === 'settings' ? { mode: 'fast', 'log.level': 'debug' } : undefined),
      secret: (ns: string, name: string) => (ns === 'shop' && name === 'creds' ? { password: 's3cret' } : undefined),
    };
    expect(makeEnvironmentVariables(podWith(c), c, { ...ctx, lookup })).toEqual([
      { name: 'CFG_mode', value: 'fast' },
      { name: 'CFG_log.level', value: 'debug' },
      { name: 'PASSWORD', value: 's3cret' },
    ]);
  });

  it('fails a required secret reference without a lookup', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }] };
    expect(() => makeEnvironmentVariables(podWith(c), c, ctx)).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
  });
});

describe('expandCommandAndArgs', () => {
  it('expands command and args against the final environment', () => {
    const c: Container = { name: 'app', image: 'x:1', command: ['/bin/$(BIN)'], args: ['--port=$(PORT)', '$$(PORT)', '$(NOPE)'] };
    expect(expandCommandAndArgs(c, [{ name: 'BIN', value: 'server' }, { name: 'PORT', value: '8080' }])).toEqual({
      command: ['/bin/server'],
      args: ['--port=8080', '$(PORT)', '$(NOPE)'],
    });
  });

  it('leaves absent command and args absent', () => {
    expect(expandCommandAndArgs({ name: 'app', image: 'x:1' }, [])).toEqual({});
  });
});

describe('makeEnvironmentVariables with ConfigMaps and Secrets (Go\'s messages)', () => {
  const lookup = {
    configMap: (ns: string, name: string) => (ns === 'shop' && name === 'settings' ? { mode: 'fast' } : undefined),
    secret: (ns: string, name: string) => (ns === 'shop' && name === 'creds' ? { password: 's3cret' } : undefined),
  };
  const cmKey = (name: string, key: string, optional?: boolean): Container => ({
    name: 'app', image: 'x:1', env: [{ name: 'V', valueFrom: { configMapKeyRef: { name, key, ...(optional !== undefined ? { optional } : {}) } } }],
  });
  const secretKey = (name: string, key: string, optional?: boolean): Container => ({
    name: 'app', image: 'x:1', env: [{ name: 'V', valueFrom: { secretKeyRef: { name, key, ...(optional !== undefined ? { optional } : {}) } } }],
  });
  const fails = (c: Container, context: EnvContext, message: string) => {
    const run = () => makeEnvironmentVariables(podWith(c), c, context);
    expect(run).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG' }));
    expect(run).toThrow(message);
  };

  it.each([
    ['a configMapKeyRef', cmKey('x', 'k'), "couldn't get configMap shop/x, no kubeClient defined"],
    ['a secretKeyRef', secretKey('x', 'k'), "couldn't get secret shop/x, no kubeClient defined"],
    ['an optional configMapKeyRef', cmKey('x', 'k', true), "couldn't get configMap shop/x, no kubeClient defined"],
    ['an envFrom configMapRef', { name: 'app', image: 'x:1', envFrom: [{ configMapRef: { name: 'x' } }] }, "couldn't get configMap shop/x, no kubeClient defined"],
    ['an optional envFrom secretRef', { name: 'app', image: 'x:1', envFrom: [{ secretRef: { name: 'x', optional: true } }] }, "couldn't get secret shop/x, no kubeClient defined"],
  ] as [string, Container, string][])('fails %s without a lookup (standalone)', (_what, c, message) => {
    fails(c, ctx, message);
  });

  it.each([
    ['a configMapKeyRef', cmKey('x', 'k'), 'configmap "x" not found'],
    ['a secretKeyRef', secretKey('x', 'k'), 'secret "x" not found'],
    ['an envFrom configMapRef', { name: 'app', image: 'x:1', envFrom: [{ configMapRef: { name: 'x' } }] }, 'configmap "x" not found'],
    ['an envFrom secretRef', { name: 'app', image: 'x:1', envFrom: [{ secretRef: { name: 'x' } }] }, 'secret "x" not found'],
  ] as [string, Container, string][])('fails %s to a missing object with the manager\'s not-found message', (_what, c, message) => {
    fails(c, { ...ctx, lookup }, message);
  });

  it.each([
    ['a configMapKeyRef', cmKey('x', 'k', true)],
    ['a secretKeyRef', secretKey('x', 'k', true)],
    ['an envFrom configMapRef', { name: 'app', image: 'x:1', envFrom: [{ configMapRef: { name: 'x', optional: true } }] }],
    ['an envFrom secretRef', { name: 'app', image: 'x:1', envFrom: [{ secretRef: { name: 'x', optional: true } }] }],
  ] as [string, Container][])('skips an optional %s to a missing object', (_what, c) => {
    expect(makeEnvironmentVariables(podWith(c), c, { ...ctx, lookup })).toEqual([]);
  });

  it.each([
    ['ConfigMap', cmKey('settings', 'nope'), "couldn't find key nope in ConfigMap shop/settings"],
    ['Secret', secretKey('creds', 'nope'), "couldn't find key nope in Secret shop/creds"],
  ] as [string, Container, string][])('fails a reference to a key the %s does not have', (_kind, c, message) => {
    fails(c, { ...ctx, lookup }, message);
  });

  it.each([
    ['ConfigMap', cmKey('settings', 'nope', true)],
    ['Secret', secretKey('creds', 'nope', true)],
  ] as [string, Container][])('skips an optional reference to a key the %s does not have', (_kind, c) => {
    expect(makeEnvironmentVariables(podWith(c), c, { ...ctx, lookup })).toEqual([]);
  });

  it('names the default namespace for a pod without one', () => {
    const c = cmKey('x', 'k');
    const pod: Pod = { metadata: { name: 'web', uid: 'uid-1' }, spec: { containers: [c] } };
    expect(() => makeEnvironmentVariables(pod, c, ctx)).toThrow("couldn't get configMap default/x, no kubeClient defined");
  });
});

describe('makeEnvironmentVariables with env files (fileKeyRef)', () => {
  const FILE = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir/config/config.env';
  const ref = (key: string, optional?: boolean) => ({ valueFrom: { fileKeyRef: { volumeName: 'config', path: 'config.env', key, ...(optional !== undefined ? { optional } : {}) } } });
  const files = (text: string): EnvContext['envFiles'] => (volumeName, path) =>
    (volumeName === 'config' && path === 'config.env' ? { path: FILE, text } : { noVolume: true });
  const envOf = (c: Container, envFiles: EnvContext['envFiles']) => makeEnvironmentVariables(podWith(c), c, { ...ctx, ...(envFiles ? { envFiles } : {}) });

  it('takes each key from the file, and leaves out an optional key the file does not hold', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'ONE', ...ref('CONFIG_1') }, { name: 'MISSING', ...ref('NOPE', true) }, { name: 'TWO', ...ref('CONFIG_2') }] };
    expect(envOf(c, files("CONFIG_1='value1'\nCONFIG_2='value2'\n"))).toEqual([{ name: 'ONE', value: 'value1' }, { name: 'TWO', value: 'value2' }]);
  });

  it('fails a key the file does not hold, or holds as \'\', naming the key and the file, as Go does', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'MISSING_KEY', ...ref('MISSING_KEY') }] };
    expect(() => envOf(c, files("EXISTING_KEY='value'\n"))).toThrow(`environment variable key "MISSING_KEY" not found in file "${FILE}"`);
    expect(() => envOf(c, files("MISSING_KEY=''\n"))).toThrow('not found in file');
  });

  it('fails a volume the pod does not have, and a file that cannot be read or parsed with Go\'s terse message, the reason kept as the cause', () => {
    const noVolume: Container = { name: 'app', image: 'x:1', env: [{ name: 'A', valueFrom: { fileKeyRef: { volumeName: 'nonexistent-volume', path: 'env', key: 'A' } } }] };
    expect(() => envOf(noVolume, files(''))).toThrow('cannot find the volume "nonexistent-volume" referenced by FileKeyRef');
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'A', ...ref('A', true) }] };
    const unreadable: EnvContext['envFiles'] = () => ({ path: FILE, unreadable: `failed to open environment variable file "${FILE}": ENOENT` });
    expect(() => envOf(c, unreadable)).toThrow("couldn't parse env file");
    try {
      envOf(c, files('A=unquoted\n'));
      expect.unreachable();
    } catch (err) {
      expect(((err as Error).cause as Error).message).toBe(`${FILE}: invalid environment variable format at line 1: value must be enclosed in single quotes`);
    }
  });

  it('gives \'\' with the EnvFiles gate off (no files read), as Go does', () => {
    const c: Container = { name: 'app', image: 'x:1', env: [{ name: 'A', ...ref('A') }] };
    expect(envOf(c, undefined)).toEqual([{ name: 'A', value: '' }]);
  });
});
