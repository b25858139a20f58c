import { describe, expect, it } from 'vitest';
import { buildEffectiveConfig } from '../../../src/domain/config/effective.js';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';

const head = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
const build = (argv: string[], file?: Record<string, unknown>, dropIns: { name: string; doc: unknown; strictErrors?: string[] }[] = [], fileStrictErrors?: string[]) =>
  buildEffectiveConfig({
    parsed: parseCommandLine(argv),
    ...(file ? { file: { ...head, ...file }, fileName: '/etc/kubernetes/kubelet.yaml', ...(fileStrictErrors ? { fileStrictErrors } : {}) } : {}),
    dropIns,
  });

// cmd/kubelet/app/server.go: loadConfigFile, mergeKubeletConfigurations, kubeletConfigFlagPrecedence.
describe('buildEffectiveConfig', () => {
  it('uses the flag-only defaults (legacy auth, read-only port) without --config', () => {
    const { config, errors } = build([]);
    expect(errors).toEqual([]);
    expect(config.readOnlyPort).toBe(10255);
    expect(config.authorization.mode).toBe('AlwaysAllow');
    expect(config.authentication.anonymous.enabled).toBe(true);
  });

  it('uses the v1beta1 defaults, not the legacy ones, with a --config file', () => {
    const { config } = build(['--config=/etc/kubernetes/kubelet.yaml'], {});
    expect(config.readOnlyPort).toBe(0);
    expect(config.authorization.mode).toBe('Webhook');
    expect(config.authentication.webhook.enabled).toBe(true);
  });

  it('lets only the flags actually given override the file', () => {
    const { config } = build(['--max-pods=20'], { maxPods: 50, syncFrequency: '30s', port: 11250 });
    expect(config.maxPods).toBe(20); // flag wins
    expect(config.syncFrequency).toBe('30s'); // file kept, although --sync-frequency has a default
    expect(config.port).toBe(11250);
  });

  it('replaces a whole map from a map flag, but merges --feature-gates over the file\'s gates', () => {
    const { config } = build(
      ['--kube-reserved=cpu=100m', '--feature-gates=MemoryQoS=false'],
      { kubeReserved: { memory: '1Gi', cpu: '1' }, featureGates: { MemoryQoS: true, EventedPLEG: true } },
    );
    expect(config.kubeReserved).toEqual({ cpu: '100m' });
    expect(config.featureGates).toEqual({ MemoryQoS: false, EventedPLEG: true });
  });

  it('replaces the whole default evictionHard with --eviction-hard', () => {
    const { config } = build(['--eviction-hard=memory.available<1Gi']);
    expect(config.evictionHard).toEqual({ 'memory.available': '1Gi' });
  });

  it('lays drop-ins over the file in order: later wins per field, maps merge, lists are replaced', () => {
    const { config, errors } = build([], { maxPods: 50, kubeReserved: { cpu: '1' }, clusterDNS: ['10.0.0.10', '10.0.0.11'] }, [
      { name: '/d/10-a.conf', doc: { ...head, maxPods: 60, kubeReserved: { memory: '1Gi' }, clusterDNS: ['10.0.0.53'] } },
      { name: '/d/20-b.conf', doc: { ...head, maxPods: 70, healthzPort: null } },
    ]);
    expect(errors).toEqual([]);
    expect(config.maxPods).toBe(70);
    expect(config.kubeReserved).toEqual({ cpu: '1', memory: '1Gi' });
    expect(config.clusterDNS).toEqual(['10.0.0.53']);
    expect(config.healthzPort).toBe(10248); // a null in a drop-in changes nothing
  });

  it('applies flags after the drop-ins', () => {
    const { config } = build(['--max-pods=5'], { maxPods: 50 }, [{ name: '/d/a.conf', doc: { ...head, maxPods: 60 } }]);
    expect(config.maxPods).toBe(5);
  });

  it('does not re-default after a drop-in: the report frequency follows the file, not the drop-in', () => {
    const { config } = build([], {}, [{ name: '/d/a.conf', doc: { ...head, nodeStatusUpdateFrequency: '20s' } }]);
    expect(config.nodeStatusUpdateFrequency).toBe('20s');
    expect(config.nodeStatusReportFrequency).toBe('5m0s');
  });

  it('resolves the file\'s relative paths against its directory', () => {
    const { config } = build([], { staticPodPath: 'manifests', tlsCertFile: 'pki/kubelet.crt', authentication: { x509: { clientCAFile: '/abs/ca.crt' } } });
    expect(config.staticPodPath).toBe('/etc/kubernetes/manifests');
    expect(config.tlsCertFile).toBe('/etc/kubernetes/pki/kubelet.crt');
    expect(config.authentication.x509.clientCAFile).toBe('/abs/ca.crt');
  });

  it('reports decode errors of the file and of each drop-in with the file name, plus validation errors, together', () => {
    const { errors } = build(['--node-labels=kubernetes.io/role=x'], { maxPods: 'ten', oomScoreAdj: 5000 }, [{ name: '/d/a.conf', doc: { ...head, port: 'http' } }]);
    expect(errors.map((e) => e.field)).toEqual(['maxPods', 'port', 'oomScoreAdj', '--node-labels']);
    expect(errors[0]?.message).toBe('/etc/kubernetes/kubelet.yaml: cannot unmarshal string "ten" into field "maxPods" of type int32');
    expect(errors[1]?.message).toContain('/d/a.conf: ');
  });

  it('warns of the duplicated keys and unknown fields of the file and of each drop-in, naming file and field, and applies the rest', () => {
    const { config, errors, warnings } = build(
      [],
      { maxPod: 3, maxPods: 30, authentication: { anonymous: { enable: true } } },
      [{ name: '/d/a.conf', doc: { ...head, colour: 'red', port: 11250 }, strictErrors: ['line 4: key "port" already set in map'] }],
      ['line 9: key "maxPods" already set in map'],
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      '/etc/kubernetes/kubelet.yaml: strict decoding error: line 9: key "maxPods" already set in map',
      '/etc/kubernetes/kubelet.yaml: strict decoding error: unknown field "maxPod"',
      '/etc/kubernetes/kubelet.yaml: strict decoding error: unknown field "authentication.anonymous.enable"',
      '/d/a.conf: strict decoding error: line 4: key "port" already set in map',
      '/d/a.conf: strict decoding error: unknown field "colour"',
    ]);
    expect(config.maxPods).toBe(30);
    expect(config.port).toBe(11250);
    expect(config.authentication.anonymous.enabled).toBe(false);
  });

  it('names unknown and locked feature gates by where they were set', () => {
    const { errors } = build(['--feature-gates=Bogus=true'], { featureGates: { AlsoBogus: true, NodeSwap: false } });
    expect(errors.map((e) => e.field)).toEqual(['featureGates.AlsoBogus', 'featureGates.NodeSwap', '--feature-gates.Bogus']);
  });

  it('rejects runOnce from the file and from --runonce, as Go >= 1.31 does', () => {
    expect(build([], { runOnce: true }).errors.map((e) => e.field)).toEqual(['runOnce']);
    expect(build(['--runonce']).errors.map((e) => e.field)).toEqual(['runOnce']);
  });

  it('accepts --container-runtime-endpoint=embedded and keeps containerd as the default', () => {
    expect(build([]).config.containerRuntimeEndpoint).toBe('unix:///run/containerd/containerd.sock');
    const { config, errors } = build(['--container-runtime-endpoint=embedded']);
    expect(errors).toEqual([]);
    expect(config.containerRuntimeEndpoint).toBe('embedded');
  });

  it('defaults with the command line\'s gates when there is no file', () => {
    const { config, errors } = build(['--feature-gates=KubeletCrashLoopBackOffMax=false']);
    expect(errors).toEqual([]);
    expect(config.crashLoopBackOff.maxContainerRestartPeriod).toBeNull();
  });

  it('returns the effective gates', () => {
    expect(build(['--feature-gates=EventedPLEG=true']).gates.EventedPLEG).toBe(true);
  });
});
