import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { FLAG_TABLE } from '../../../src/domain/config/flag-table.js';
import { KubeletError } from '../../../src/domain/errors.js';

function errorOf(argv: string[]): KubeletError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (err instanceof KubeletError) return err;
    throw err;
  }
  throw new Error('expected parseCommandLine to throw');
}

describe('parseCommandLine', () => {
  it('gives the Go KubeletFlags defaults and an empty config when nothing is given', () => {
    const p = parseCommandLine([]);
    expect(p.given).toEqual([]);
    expect(p.configFromFlags).toEqual({});
    expect(p.flags.rootDirectory).toBe('/var/lib/kubelet');
    expect(p.flags.certDirectory).toBe('/var/lib/kubelet/pki');
    expect(p.flags.maxContainerCount).toBe(-1);
    expect(p.flags.maxPerPodContainerCount).toBe(1);
    expect(p.flags.registerSchedulable).toBe(true);
    expect(p.flags.debugAddress).toBe('127.0.0.1:10260');
    expect(p.flags.eventLog).toBe('/var/lib/kubelet/events/');
    expect([p.help, p.version]).toEqual([false, false]);
  });

  it('accepts --flag=value and --flag value', () => {
    const p = parseCommandLine(['--config=/etc/kubelet.yaml', '--kubeconfig', '/etc/kubeconfig', '--max-pods', '50']);
    expect(p.flags.kubeletConfigFile).toBe('/etc/kubelet.yaml');
    expect(p.flags.kubeconfig).toBe('/etc/kubeconfig');
    expect(p.configFromFlags).toEqual({ maxPods: 50 });
    expect(p.given).toEqual(['config', 'kubeconfig', 'max-pods']);
  });

  it('keeps --seccomp-default among the flags, as Go\'s KubeletFlags does', () => {
    const p = parseCommandLine(['--seccomp-default']);
    expect(p.flags.seccompDefault).toBe(true);
    expect(p.configFromFlags).toEqual({});
    expect(p.warnings).toEqual([]);
  });

  it('reads underscores as dashes', () => {
    const p = parseCommandLine(['--max_pods=12', '--hostname_override', 'n1']);
    expect(p.configFromFlags.maxPods).toBe(12);
    expect(p.flags.hostnameOverride).toBe('n1');
    expect(p.given).toEqual(['max-pods', 'hostname-override']);
  });

  it('takes a bare boolean as true and never consumes the next word for it', () => {
    expect(parseCommandLine(['--register-node']).configFromFlags.registerNode).toBe(true);
    expect(parseCommandLine(['--register-node=false']).configFromFlags.registerNode).toBe(false);
    expect(parseCommandLine(['--fail-swap-on=F']).configFromFlags.failSwapOn).toBe(false);
    expect(errorOf(['--register-node', 'false']).code).toBe('KLT_ERR_FLAG_UNKNOWN');
  });

  it('parses map, list, duration, taint and nested-path flags into config form', () => {
    const p = parseCommandLine([
      '--node-labels', 'a=b,c=d',
      '--eviction-hard', 'memory.available<100Mi,nodefs.available<10%',
      '--feature-gates', 'MemoryQoS=true,EventedPLEG=false',
      '--kube-reserved', 'cpu=100m',
      '--register-with-taints', 'dedicated=gpu:NoSchedule,spot:PreferNoSchedule',
      '--node-ip', '10.0.0.1,fd00::1',
      '--sync-frequency', '90s',
      '--anonymous-auth=false',
      '--cluster-dns', '10.96.0.10',
      '--cluster-dns', '10.96.0.11',
    ]);
    expect(p.flags.nodeLabels).toEqual({ a: 'b', c: 'd' });
    expect(p.flags.nodeIP).toBe('10.0.0.1,fd00::1');
    expect(p.configFromFlags).toEqual({
      evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
      featureGates: { MemoryQoS: true, EventedPLEG: false },
      kubeReserved: { cpu: '100m' },
      registerWithTaints: [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'spot', effect: 'PreferNoSchedule' },
      ],
      syncFrequency: '1m30s',
      authentication: { anonymous: { enabled: false } },
      clusterDNS: ['10.96.0.10', '10.96.0.11'],
    });
  });

  it('accumulates repeated map flags and colon multimaps as cliflag does', () => {
    const p = parseCommandLine(['--manifest-url-header', 'a:hello,b:again', '--manifest-url-header', 'b:beautiful', '--kube-reserved=cpu=1', '--kube-reserved=memory=1Gi']);
    expect(p.configFromFlags.staticPodURLHeader).toEqual({ a: ['hello'], b: ['again', 'beautiful'] });
    expect(p.configFromFlags.kubeReserved).toEqual({ cpu: '1', memory: '1Gi' });
  });

  it('reads -v in all of pflag\'s spellings', () => {
    for (const argv of [['-v', '4'], ['-v=4'], ['-v4'], ['--v=4'], ['--v', '4']]) {
      expect(parseCommandLine(argv).configFromFlags.logging?.verbosity).toBe(4);
    }
  });

  it('parses integers with Go base prefixes', () => {
    expect(parseCommandLine(['--max-pods=0x10']).configFromFlags.maxPods).toBe(16);
    expect(parseCommandLine(['--oom-score-adj=-500']).configFromFlags.oomScoreAdj).toBe(-500);
  });

  it('recognises --help, -h, --version and --version=raw', () => {
    expect(parseCommandLine(['--help']).help).toBe(true);
    expect(parseCommandLine(['-h']).help).toBe(true);
    expect(parseCommandLine(['--version']).version).toBe(true);
    expect(parseCommandLine(['--version=raw'])).toMatchObject({ version: true, versionRaw: true });
    expect(parseCommandLine(['--version=false']).version).toBe(false);
  });

  it('keeps kubelet-ts flags: --event-log (empty turns it off), --debug-address, --embedded-runtime-allow-cluster', () => {
    const p = parseCommandLine(['--event-log=', '--debug-address', '', '--embedded-runtime-allow-cluster', '--container-runtime-endpoint=embedded']);
    expect(p.flags.eventLog).toBe('');
    expect(p.flags.debugAddress).toBe('');
    expect(p.flags.embeddedRuntimeAllowCluster).toBe(true);
    expect(p.configFromFlags.containerRuntimeEndpoint).toBe('embedded');
    expect(parseCommandLine(['--root-dir=/srv/k/']).flags.eventLog).toBe('/srv/k/events/');
  });

  it('warns about deprecated flags in Go\'s wording, once each', () => {
    const p = parseCommandLine(['--max-pods=3', '--max-pods=4', '--node-labels=a=b']);
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0]).toMatch(/^Flag --max-pods has been deprecated, This parameter should be set via the config file/);
  });

  it.each([
    [['--no-such-flag'], 'KLT_ERR_FLAG_UNKNOWN', 'unknown flag: --no-such-flag'],
    [['stray'], 'KLT_ERR_FLAG_UNKNOWN', 'unknown command "stray" for "kubelet"'],
    [['--', 'after'], 'KLT_ERR_FLAG_UNKNOWN', 'unknown command "after" for "kubelet"'],
    [['-x'], 'KLT_ERR_FLAG_UNKNOWN', "unknown shorthand flag: 'x' in -x"],
    [['--max-pods=abc'], 'KLT_ERR_FLAG_INVALID', 'invalid argument "abc" for "--max-pods" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--max-pods=3000000000'], 'KLT_ERR_FLAG_INVALID', 'invalid argument "3000000000" for "--max-pods" flag: strconv.ParseInt: parsing "3000000000": value out of range'],
    [['--sync-frequency=5'], 'KLT_ERR_FLAG_INVALID', 'invalid argument "5" for "--sync-frequency" flag: time: missing unit in duration "5"'],
    [['--address=1.2.3'], 'KLT_ERR_FLAG_INVALID', 'invalid argument "1.2.3" for "--address" flag: "1.2.3" is not a valid IP address'],
    [['--node-labels=novalue'], 'KLT_ERR_FLAG_INVALID', 'invalid argument "novalue" for "--node-labels" flag: malformed pair, expect string=string'],
    [['--eviction-hard=memory.available=1Gi'], 'KLT_ERR_FLAG_INVALID', 'malformed pair, expect string<string'],
    [['--feature-gates=A=maybe'], 'KLT_ERR_FLAG_INVALID', 'invalid value of A: maybe'],
    [['--register-with-taints=k=v:Sometimes'], 'KLT_ERR_FLAG_INVALID', 'invalid taint effect: Sometimes'],
    [['--config'], 'KLT_ERR_FLAG_INVALID', 'flag needs an argument: --config'],
    [['--fail-swap-on=maybe'], 'KLT_ERR_FLAG_INVALID', 'strconv.ParseBool: parsing "maybe": invalid syntax'],
  ])('rejects %j with %s naming the problem', (argv, code, message) => {
    const err = errorOf(argv);
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
  });

  it('reports every problem of the line at once', () => {
    const err = errorOf(['--bogus', 'word', '--max-pods=x', '--port=y']);
    expect(err.code).toBe('KLT_ERR_FLAG_UNKNOWN');
    expect(err.message.split('\n')).toEqual([
      'unknown flag: --bogus',
      'unknown command "word" for "kubelet"',
      'invalid argument "x" for "--max-pods" flag: strconv.ParseInt: parsing "x": invalid syntax',
      'invalid argument "y" for "--port" flag: strconv.ParseInt: parsing "y": invalid syntax',
    ]);
  });
});

// cmd/kubelet/app/options/options.go (AddFlags, AddKubeletConfigFlags), container_runtime.go, globalflags_linux.go.
describe('FLAG_TABLE', () => {
  const names = FLAG_TABLE.map((f) => f.name);
  it.each([
    'config', 'config-dir', 'kubeconfig', 'bootstrap-kubeconfig', 'hostname-override', 'node-ip', 'root-dir', 'cert-dir',
    'container-runtime-endpoint', 'image-service-endpoint', 'pod-manifest-path', 'max-pods', 'sync-frequency', 'feature-gates',
    'lock-file', 'exit-on-lock-contention', 'register-node', 'node-labels', 'register-with-taints', 'v', 'address', 'port',
    'read-only-port', 'healthz-port', 'healthz-bind-address', 'anonymous-auth', 'authorization-mode', 'client-ca-file',
    'tls-cert-file', 'tls-private-key-file', 'eviction-hard', 'kube-reserved', 'system-reserved', 'cgroup-root', 'cgroup-driver',
    'cgroups-per-qos', 'oom-score-adj', 'node-status-update-frequency', 'runtime-request-timeout', 'file-check-frequency',
    'http-check-frequency', 'manifest-url', 'manifest-url-header', 'kube-api-qps', 'kube-api-burst', 'event-qps', 'event-burst',
    'serialize-image-pulls', 'image-gc-high-threshold', 'image-gc-low-threshold', 'runonce', 'housekeeping-interval',
    'minimum-container-ttl-duration', 'maximum-dead-containers', 'pod-infra-container-image', 'vmodule', 'logging-format',
    'event-log', 'debug-address', 'embedded-runtime-allow-cluster',
  ])('registers --%s', (name) => {
    expect(names).toContain(name);
  });

  it('has each name once', () => {
    expect(new Set(names).size).toBe(names.length);
  });

  it('marks kubelet-ts\'s own flags', () => {
    expect(FLAG_TABLE.filter((f) => f.ours).map((f) => f.name).sort()).toEqual(
      ['debug-address', 'device-plugins-dir', 'embedded-runtime-allow-cluster', 'event-log', 'max-parallel-image-pulls'],
    );
  });
});
