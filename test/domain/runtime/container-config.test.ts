import { describe, expect, it } from 'vitest';
import { generateContainerConfig, generatePodSandboxConfig, restartCountFromLogFiles, type NodeRuntimeContext } from '../../../src/domain/runtime/container-config.js';
import { containerInfoFromRuntime } from '../../../src/domain/runtime/labels.js';
import { hashContainer, hashContainerWithoutResources } from '../../../src/domain/runtime/container-hash.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../../src/domain/runtime/masked-paths.js';

const web: Container = {
  name: 'web',
  image: 'nginx:1.27',
  command: ['nginx', '-g', '$(MODE)'],
  args: ['--listen=$(POD_IP):$(PORT)', '$$(PORT)'],
  workingDir: '/srv',
  ports: [{ name: 'http', containerPort: 80, hostPort: 8080, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }],
  env: [
    { name: 'PORT', value: '80' },
    { name: 'MODE', value: 'daemon off;' },
    { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ],
  resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } },
  securityContext: { runAsUser: 1000, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } },
  lifecycle: { preStop: { exec: { command: ['nginx', '-s', 'quit'] } } },
  stdin: true,
  tty: true,
};

const pod: Pod = {
  metadata: { name: 'frontend', namespace: 'shop', uid: '1234-abcd', labels: { app: 'frontend', 'io.kubernetes.pod.name': 'spoofed' }, annotations: { team: 'web' }, deletionGracePeriodSeconds: 15 },
  spec: {
    containers: [web, { name: 'helper', image: 'busybox:1.36', ports: [{ containerPort: 9000 }, { containerPort: 9000 }] }],
    terminationGracePeriodSeconds: 45,
    nodeName: 'node-a',
    securityContext: { runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000], sysctls: [{ name: 'net/ipv4/ip_unprivileged_port_start', value: '0' }] },
  },
};

const ctx: NodeRuntimeContext = {
  podLogsDir: '/var/log/pods/',
  dns: { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', nodeIPs: ['192.168.1.5'], hostDns: { servers: ['192.168.1.1'], searches: [], options: [] } },
  hostIPs: ['192.168.1.5'],
  memoryCapacityBytes: 4 * 1024 ** 3,
};

describe('generatePodSandboxConfig', () => {
  const config = generatePodSandboxConfig(pod, 2, ctx, '/kubepods/burstable/pod1234-abcd');

  it('names the sandbox after the pod with the attempt', () => {
    expect(config.metadata).toEqual({ name: 'frontend', namespace: 'shop', uid: '1234-abcd', attempt: 2 });
  });

  it('carries the pod labels with the io.kubernetes.pod.* labels winning, and the pod annotations', () => {
    expect(config.labels).toEqual({ app: 'frontend', 'io.kubernetes.pod.name': 'frontend', 'io.kubernetes.pod.namespace': 'shop', 'io.kubernetes.pod.uid': '1234-abcd' });
    expect(config.annotations).toEqual({ team: 'web' });
  });

  it('puts logs under <podLogsDir>/<namespace>_<name>_<uid>', () => {
    expect(config.log_directory).toBe('/var/log/pods/shop_frontend_1234-abcd');
  });

  it('sets hostname, cluster DNS, port mappings of every container (duplicates dropped) and the cgroup parent', () => {
    expect(config.hostname).toBe('frontend');
    expect(config.dns_config?.servers).toEqual(['10.96.0.10']);
    expect(config.port_mappings).toEqual([
      { protocol: 'TCP', container_port: 80, host_port: 8080, host_ip: '' },
      { protocol: 'UDP', container_port: 53, host_port: 0, host_ip: '' },
      { protocol: 'TCP', container_port: 9000, host_port: 0, host_ip: '' },
    ]);
    expect(config.linux?.cgroup_parent).toBe('/kubepods/burstable/pod1234-abcd');
  });

  it('sets pod namespaces, pod-level user/group and sysctls with dots', () => {
    expect(config.linux?.security_context).toEqual({
      namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
      privileged: false,
      run_as_group: { value: '3000' },
      supplemental_groups: ['2000', '4000'],
      seccomp: { profile_type: 'Unconfined' },
    });
    expect(config.linux?.sysctls).toEqual({ 'net.ipv4.ip_unprivileged_port_start': '0' });
  });

  it('uses the node network, no hostname and the host DNS for hostNetwork pods', () => {
    const hostPod: Pod = { ...pod, spec: { ...pod.spec, hostNetwork: true, hostPID: true } };
    const c = generatePodSandboxConfig(hostPod, 0, ctx);
    expect(c.hostname).toBeUndefined();
    expect(c.dns_config).toEqual({ servers: ['192.168.1.1'], searches: [], options: [] });
    expect(c.linux?.security_context?.namespace_options).toEqual({ network: 'NODE', pid: 'NODE', ipc: 'POD' });
  });
});

describe('generateContainerConfig', () => {
  const config = generateContainerConfig(pod, web, { restartCount: 3, imageRef: 'sha256:feed', podIPs: ['10.1.0.7'] }, ctx);

  it('names the container with its restart count as attempt and the resolved image', () => {
    expect(config.metadata).toEqual({ name: 'web', attempt: 3 });
    expect(config.image).toEqual({ image: 'sha256:feed', user_specified_image: 'nginx:1.27' });
  });

  it('labels the container with the pod identity and its name only', () => {
    expect(config.labels).toEqual({
      'io.kubernetes.pod.name': 'frontend', 'io.kubernetes.pod.namespace': 'shop', 'io.kubernetes.pod.uid': '1234-abcd', 'io.kubernetes.container.name': 'web',
    });
  });

  it('annotates hash, restart count, termination settings, grace periods, preStop and ports', () => {
    expect(config.annotations).toEqual({
      'io.kubernetes.container.hash': hashContainer(web).toString(16),
      'io.kubernetes.container.hashWithoutResources': hashContainerWithoutResources(web).toString(16),
      'io.kubernetes.container.restartCount': '3',
      'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
      'io.kubernetes.container.terminationMessagePolicy': 'File',
      'io.kubernetes.pod.deletionGracePeriod': '15',
      'io.kubernetes.pod.terminationGracePeriod': '45',
      'io.kubernetes.container.preStopHandler': '{"exec":{"command":["nginx","-s","quit"]}}',
      'io.kubernetes.container.ports': JSON.stringify(web.ports),
    });
  });

  it('reads back what it wrote', () => {
    const info = containerInfoFromRuntime(config.labels ?? {}, config.annotations ?? {});
    expect(info).toMatchObject({ podName: 'frontend', podUid: '1234-abcd', containerName: 'web', hash: hashContainer(web), hashWithoutResources: hashContainerWithoutResources(web), restartCount: 3, podTerminationGracePeriodSeconds: 45, podDeletionGracePeriodSeconds: 15 });
  });

  it('writes logs to <name>/<restartCount>.log', () => {
    expect(config.log_path).toBe('web/3.log');
  });

  it('expands env, command and args', () => {
    expect(config.envs?.map((e) => `${e.key}=${e.value.toString('utf8')}`)).toEqual(['PORT=80', 'MODE=daemon off;', 'POD_IP=10.1.0.7']);
    expect(config.command).toEqual(['nginx', '-g', 'daemon off;']);
    expect(config.args).toEqual(['--listen=10.1.0.7:80', '$(PORT)']);
    expect(config.working_dir).toBe('/srv');
  });

  it('maps resources and the security context', () => {
    expect(config.linux?.resources).toEqual({ cpu_shares: '102', cpu_period: '100000', cpu_quota: '20000', memory_limit_in_bytes: '134217728', oom_score_adj: '985' });
    expect(config.linux?.security_context).toEqual({
      privileged: false,
      readonly_rootfs: true,
      no_new_privs: true,
      namespace_options: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' },
      run_as_user: { value: '1000' },
      run_as_group: { value: '3000' },
      capabilities: { add_capabilities: ['NET_BIND_SERVICE'], drop_capabilities: ['ALL'] },
      supplemental_groups: ['2000', '4000'],
      seccomp: { profile_type: 'Unconfined' },
      masked_paths: [...DEFAULT_MASKED_PATHS],
      readonly_paths: [...DEFAULT_READONLY_PATHS],
    });
  });

  it('sends the seccomp profile of the node\'s policy to the sandbox (pod level) and the container (its own first)', () => {
    const node: NodeRuntimeContext = { ...ctx, seccomp: { runtimeDefault: true, profileRoot: '/var/lib/kts/seccomp' } };
    const audited: Container = { ...web, securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'audit.json' } } };
    const both: Pod = { ...pod, spec: { ...pod.spec, containers: [audited] } };
    expect(generatePodSandboxConfig(both, 0, node).linux?.security_context?.seccomp).toEqual({ profile_type: 'RuntimeDefault' });
    expect(generateContainerConfig(both, audited, { restartCount: 0, imageRef: 'sha256:feed', podIPs: [] }, node).linux?.security_context?.seccomp)
      .toEqual({ profile_type: 'Localhost', localhost_ref: '/var/lib/kts/seccomp/audit.json' });
  });

  it('passes stdin and tty', () => {
    expect([config.stdin, config.stdin_once, config.tty]).toEqual([true, false, true]);
  });
});

describe('hashContainer', () => {
  it('ignores key order and undefined fields but sees any value change', () => {
    const a: Container = { name: 'c', image: 'x:1', args: ['a'] };
    const b = { args: ['a'], image: 'x:1', name: 'c', command: undefined } as Container;
    expect(hashContainer(a)).toBe(hashContainer(b));
    expect(hashContainer({ ...a, args: ['b'] })).not.toBe(hashContainer(a));
    expect(hashContainer(a)).toBeLessThan(2 ** 32);
    expect(Number.isInteger(hashContainer(a))).toBe(true);
  });
});

describe('restartCountFromLogFiles', () => {
  it.each<[string[], number]>([
    [[], 0],
    [['0.log'], 1],
    [['0.log', '3.log', '1.log'], 4],
    [['2.log.20260101-120000', '1.log'], 3],
    [['notes.txt', 'x.log', '7.logfile'], 0],
  ])('%j → %i', (names, expected) => {
    expect(restartCountFromLogFiles(names)).toBe(expected);
  });
});

describe('generateContainerConfig devices', () => {
  it('carries the raw block volumes given, and none when there are none', () => {
    const devices = [{ container_path: '/dev/xvda', host_path: '/var/lib/kubelet/pods/1234-abcd/volumeDevices/kubernetes.io~local-volume/pv-1', permissions: 'mrw' }];
    expect(generateContainerConfig(pod, web, { restartCount: 0, imageRef: 'sha256:feed', podIPs: [], devices }, ctx).devices).toEqual(devices);
    expect(generateContainerConfig(pod, web, { restartCount: 0, imageRef: 'sha256:feed', podIPs: [], devices: [] }, ctx).devices).toBeUndefined();
  });
});
