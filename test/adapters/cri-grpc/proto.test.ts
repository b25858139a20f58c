import { describe, expect, it } from 'vitest';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import type { ContainerConfig, ContainerFilter, ContainerStatus, PodSandboxConfig, PodSandboxFilter } from '../../../src/ports/cri.js';

describe('loadCriProto', () => {
  it('builds once per process and exposes both services with the RPCs kubelet-ts uses', () => {
    const a = loadCriProto();
    expect(loadCriProto()).toBe(a);
    expect(Object.keys(a.runtimeService)).toEqual(expect.arrayContaining([
      'Version', 'Status', 'RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox', 'PodSandboxStatus', 'ListPodSandbox',
      'CreateContainer', 'StartContainer', 'StopContainer', 'RemoveContainer', 'ListContainers', 'ContainerStatus',
      'UpdateContainerResources', 'ReopenContainerLog', 'ExecSync', 'ContainerStats', 'ListContainerStats',
      'PodSandboxStats', 'UpdateRuntimeConfig',
    ]));
    expect(Object.keys(a.imageService).sort()).toEqual(['ImageFsInfo', 'ImageStatus', 'ListImages', 'PullImage', 'RemoveImage']);
    expect(a.runtimeService.RunPodSandbox?.path).toBe('/runtime.v1.RuntimeService/RunPodSandbox');
    expect(a.imageService.PullImage?.path).toBe('/runtime.v1.ImageService/PullImage');
    expect(a.runtimeService.Version?.requestStream).toBe(false);
    expect(a.runtimeService.Version?.responseStream).toBe(false);
  });

  it('declares the cri-api field numbers containerd relies on', () => {
    // Wire compatibility is field numbers and types; spot-check the ones that changed or are easy to get wrong.
    const { root } = loadCriProto();
    const fields = (name: string): Record<string, { id: number; type: string }> =>
      Object.fromEntries(root.lookupType(`runtime.v1.${name}`).fieldsArray.map((f) => [f.name, { id: f.id, type: f.type }]));
    expect(fields('KeyValue').value).toEqual({ id: 2, type: 'bytes' });
    expect(fields('ImageSpec').user_specified_image?.id).toBe(18);
    expect(fields('ImageSpec').runtime_handler?.id).toBe(19);
    expect(fields('LinuxSandboxSecurityContext').run_as_group?.id).toBe(8);
    expect(fields('LinuxContainerSecurityContext').run_as_group?.id).toBe(12);
    expect(fields('LinuxContainerSecurityContext').no_new_privs?.id).toBe(11);
    expect(fields('LinuxSandboxSecurityContext').seccomp).toEqual({ id: 9, type: 'SecurityProfile' });
    expect(fields('LinuxContainerSecurityContext').seccomp).toEqual({ id: 15, type: 'SecurityProfile' });
    expect(fields('SecurityProfile').profile_type).toEqual({ id: 1, type: 'ProfileType' });
    expect(fields('SecurityProfile').localhost_ref).toEqual({ id: 2, type: 'string' });
    expect(fields('ContainerStatus').log_path?.id).toBe(15);
    expect(fields('StopContainerRequest').timeout).toEqual({ id: 2, type: 'int64' });
    expect(fields('ExecSyncResponse').stdout).toEqual({ id: 1, type: 'bytes' });
    expect(fields('PodSandboxConfig').linux?.id).toBe(8);
    expect(fields('ContainerConfig').linux?.id).toBe(15);
  });
});

describe('proto and port agree', () => {
  // protobufjs drops fields it does not know when serializing, so a field named in src/ports/cri.ts
  // but missing (or misspelled) in the proto would silently never reach the runtime. A full
  // round trip through the real serializers catches that.
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt: 2 },
    hostname: 'h',
    log_directory: '/var/log/pods/ns_p_u',
    dns_config: { servers: ['10.0.0.10'], searches: ['ns.svc.cluster.local'], options: ['ndots:5'] },
    port_mappings: [{ protocol: 'UDP', container_port: 53, host_port: 5353, host_ip: '127.0.0.1' }],
    labels: { a: 'b' },
    annotations: { c: 'd' },
    linux: {
      cgroup_parent: '/kubepods/podu',
      security_context: {
        namespace_options: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' },
        run_as_user: { value: '1000' },
        run_as_group: { value: '3000' },
        readonly_rootfs: true,
        supplemental_groups: ['4000'],
        privileged: true,
        seccomp: { profile_type: 'Unconfined', localhost_ref: '' },
      },
      sysctls: { 'net.ipv4.ip_forward': '1' },
      resources: { cpu_period: '100000', cpu_quota: '50000', cpu_shares: '512', memory_limit_in_bytes: '67108864', oom_score_adj: '-997', cpuset_cpus: '0-1', cpuset_mems: '0', unified: { 'memory.high': '1' }, memory_swap_limit_in_bytes: '1' },
    },
  };
  const containerConfig: ContainerConfig = {
    metadata: { name: 'c', attempt: 1 },
    image: { image: 'busybox:1', annotations: { x: 'y' }, user_specified_image: 'busybox:1', runtime_handler: 'runc' },
    command: ['sh'],
    args: ['-c', 'true'],
    working_dir: '/w',
    envs: [{ key: 'K', value: Buffer.from('v $ ü') }],
    mounts: [{ container_path: '/data', host_path: '/host', readonly: true, selinux_relabel: true }],
    labels: { l: '1' },
    annotations: { a: '2' },
    log_path: 'c/1.log',
    stdin: true,
    stdin_once: true,
    tty: true,
    linux: {
      resources: { cpu_shares: '2', memory_limit_in_bytes: '1048576' },
      security_context: {
        capabilities: { add_capabilities: ['NET_ADMIN'], drop_capabilities: ['ALL'] },
        privileged: true,
        namespace_options: { network: 'POD', pid: 'TARGET', ipc: 'POD' },
        run_as_user: { value: '1' },
        run_as_group: { value: '2' },
        run_as_username: 'nobody',
        readonly_rootfs: true,
        supplemental_groups: ['3'],
        no_new_privs: true,
        seccomp: { profile_type: 'Localhost', localhost_ref: '/var/lib/kubelet/seccomp/audit.json' },
      },
    },
  };

  function roundTrip(rpc: string, request: object): Record<string, unknown> {
    const method = loadCriProto().runtimeService[rpc]!;
    return method.requestDeserialize(method.requestSerialize(request)) as Record<string, unknown>;
  }

  it('carries every PodSandboxConfig field the port declares', () => {
    const back = roundTrip('RunPodSandbox', { config: sandboxConfig, runtime_handler: 'runc' });
    expect(back.runtime_handler).toBe('runc');
    expect(back.config).toMatchObject(sandboxConfig);
  });

  it('carries every ContainerConfig field the port declares, env values as bytes', () => {
    const back = roundTrip('CreateContainer', { pod_sandbox_id: 's', config: containerConfig, sandbox_config: sandboxConfig });
    expect(back.config).toMatchObject({ ...containerConfig, envs: [{ key: 'K', value: Buffer.from('v $ ü') }] });
  });

  it('carries the list filters the port declares', () => {
    const containerFilter: ContainerFilter = { id: 'i', state: { state: 'CONTAINER_EXITED' }, pod_sandbox_id: 's', label_selector: { k: 'v' } };
    const sandboxFilter: PodSandboxFilter = { id: 'i', state: { state: 'SANDBOX_NOTREADY' }, label_selector: { k: 'v' } };
    expect(roundTrip('ListContainers', { filter: containerFilter }).filter).toMatchObject(containerFilter);
    expect(roundTrip('ListPodSandbox', { filter: sandboxFilter }).filter).toMatchObject(sandboxFilter);
  });

  it('decodes a ContainerStatus with every field the port reads', () => {
    const status: ContainerStatus = {
      id: 'c', metadata: { name: 'n', attempt: 0 }, state: 'CONTAINER_EXITED',
      created_at: '1795303315659029051', started_at: '1795303315659029052', finished_at: '1795303315659029053',
      exit_code: 137, image: { image: 'busybox:1', annotations: {}, user_specified_image: '', runtime_handler: '' },
      image_ref: 'sha256:abc', reason: 'OOMKilled', message: 'm', labels: { a: 'b' }, annotations: { c: 'd' },
      mounts: [{ container_path: '/d', host_path: '/h', readonly: false, selinux_relabel: false, propagation: 'PROPAGATION_HOST_TO_CONTAINER' }],
      log_path: '/var/log/pods/x/c/0.log', image_id: 'sha256:abc', resources: null,
    };
    const method = loadCriProto().runtimeService.ContainerStatus!;
    const back = method.responseDeserialize(method.responseSerialize({ status, info: { k: 'v' } })) as { status: ContainerStatus };
    expect(back.status).toMatchObject(status);
  });
});
