import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { CRI_PROTO_LOADER_OPTIONS, loadCriProto, resolveCriProtoPath } from '../../../src/adapters/cri-grpc/proto.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('loadCriProto', () => {
  it('finds proto/ from the source dir and from the compiled dist/src dir alike', () => {
    const expected = join(repoRoot, 'proto', 'runtime', 'v1', 'api.proto');
    expect(resolveCriProtoPath(join(repoRoot, 'src', 'adapters', 'cri-grpc'))).toBe(expected);
    expect(resolveCriProtoPath(join(repoRoot, 'dist', 'src', 'adapters', 'cri-grpc'))).toBe(expected);
  });

  it('fails clearly when no proto/ dir is above the start dir', () => {
    expect(() => resolveCriProtoPath('/')).toThrow(/not found/);
  });

  it('loads once per process and exposes both services with the RPCs kubelet-ts uses', () => {
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
  });

  it('declares the cri-api field numbers containerd relies on', () => {
    // Wire compatibility is field numbers and types; spot-check the ones that changed or are easy to get wrong.
    const def = protoLoader.loadSync(resolveCriProtoPath(), CRI_PROTO_LOADER_OPTIONS);
    const fields = (name: string): Record<string, { id: number; type: string }> => {
      const t = def[`runtime.v1.${name}`] as { type: { field: { name: string; number: number; type: string }[] } };
      return Object.fromEntries(t.type.field.map((f) => [f.name, { id: f.number, type: f.type }]));
    };
    expect(fields('KeyValue').value).toEqual({ id: 2, type: 'TYPE_BYTES' });
    expect(fields('ImageSpec').user_specified_image?.id).toBe(18);
    expect(fields('ImageSpec').runtime_handler?.id).toBe(19);
    expect(fields('LinuxSandboxSecurityContext').run_as_group?.id).toBe(8);
    expect(fields('LinuxContainerSecurityContext').run_as_group?.id).toBe(12);
    expect(fields('LinuxContainerSecurityContext').no_new_privs?.id).toBe(11);
    expect(fields('ContainerStatus').log_path?.id).toBe(15);
    expect(fields('StopContainerRequest').timeout).toEqual({ id: 2, type: 'TYPE_INT64' });
    expect(fields('ExecSyncResponse').stdout).toEqual({ id: 1, type: 'TYPE_BYTES' });
    expect(fields('PodSandboxConfig').linux?.id).toBe(8);
    expect(fields('ContainerConfig').linux?.id).toBe(15);
  });
});
