import { describe, expect, it } from 'vitest';
import { validatePod } from '../../../src/domain/pod-config/validate-pod.js';
import type { Container, Pod, SeccompProfile } from '../../../src/domain/pod/types.js';

const valid = (): Pod => ({
  metadata: { name: 'web-node-1', namespace: 'default', uid: 'u' },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36' }], initContainers: [{ name: 'setup', image: 'busybox:1.36' }] },
});
const main = (p: Pod): Container => p.spec.containers[0]!;
const profile = (type: string, localhostProfile?: string): SeccompProfile =>
  ({ type: type as SeccompProfile['type'], ...(localhostProfile !== undefined ? { localhostProfile } : {}) });
const annotate = (p: Pod, annotations: Record<string, string>) => { p.metadata.annotations = { ...p.metadata.annotations, ...annotations }; };

/** The messages are those kube-apiserver v1.26.0 answers for the same pods (kubectl create --dry-run=server). */
function expectRefused(change: (p: Pod) => void, ...messages: string[]) {
  const pod = valid();
  change(pod);
  expect(validatePod(pod)).toEqual(messages);
}

describe('validatePod: seccomp profile fields (Go\'s validateSeccompProfileField)', () => {
  it.each<[string, (p: Pod) => void, string[]]>([
    ['an unknown type', (p) => { p.spec.securityContext = { seccompProfile: profile('RuntimeDefualt') }; },
      ['spec.securityContext.seccompProfile.type: Unsupported value: "RuntimeDefualt": supported values: "Localhost", "RuntimeDefault", "Unconfined"']],
    ['an empty type', (p) => { p.spec.securityContext = { seccompProfile: profile('') }; },
      ['spec.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set']],
    ['Localhost without a profile', (p) => { main(p).securityContext = { seccompProfile: profile('Localhost') }; },
      ['spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost']],
    // Go admits "" and runs the container unconfined.
    ['Localhost with an empty profile', (p) => { main(p).securityContext = { seccompProfile: profile('Localhost', '') }; },
      ['spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost']],
    ['a profile climbing out of <root-dir>/seccomp', (p) => { p.spec.securityContext = { seccompProfile: profile('Localhost', '../../etc/shadow') }; },
      ['spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../../etc/shadow": must not contain \'..\'']],
    ['an absolute profile, on an init container', (p) => { p.spec.initContainers![0]!.securityContext = { seccompProfile: profile('Localhost', '/etc/shadow') }; },
      ['spec.initContainers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/shadow": must be a relative path']],
    ['a profile name with another type', (p) => { p.spec.securityContext = { seccompProfile: profile('RuntimeDefault', 'x.json') }; },
      ['spec.securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:"RuntimeDefault", LocalhostProfile:"x.json"}: can only be set when seccomp type is Localhost']],
  ])('refuses %s', (_what, change, messages) => expectRefused(change, ...messages));

  it('accepts each type used as it should be', () => {
    const pod = valid();
    pod.spec.securityContext = { seccompProfile: profile('RuntimeDefault') };
    main(pod).securityContext = { seccompProfile: profile('Localhost', 'profiles/audit.json') };
    pod.spec.initContainers![0]!.securityContext = { seccompProfile: profile('Unconfined') };
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: the seccomp annotations (ValidateSeccompPodAnnotations) and their agreement with the fields', () => {
  const podKey = 'seccomp.security.alpha.kubernetes.io/pod';
  const mainKey = 'container.seccomp.security.alpha.kubernetes.io/main';
  it.each<[string, (p: Pod) => void, string[]]>([
    ['a pod profile of no known form', (p) => annotate(p, { [podKey]: 'runtime/defualt' }),
      ['metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "runtime/defualt": must be a valid seccomp profile']],
    ['an empty pod profile', (p) => annotate(p, { [podKey]: '' }),
      ['metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: "": must be a valid seccomp profile']],
    ['container profiles climbing out or absolute, for any container name', (p) => annotate(p, { [mainKey]: 'localhost/../x', 'container.seccomp.security.alpha.kubernetes.io/zz': 'localhost//abs' }), [
      'metadata.annotations.container.seccomp.security.alpha.kubernetes.io/main: Invalid value: "../x": must not contain \'..\'',
      'metadata.annotations.container.seccomp.security.alpha.kubernetes.io/zz: Invalid value: "/abs": must be a relative path',
    ]],
    ['a pod annotation and field of different types', (p) => { annotate(p, { [podKey]: 'unconfined' }); p.spec.securityContext = { seccompProfile: profile('RuntimeDefault') }; },
      ['spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match']],
    ['a container annotation and field naming different profiles', (p) => { annotate(p, { [mainKey]: 'localhost/a.json' }); main(p).securityContext = { seccompProfile: profile('Localhost', 'b.json') }; },
      ['spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match']],
    ['a container annotation runtime/default with an Unconfined field', (p) => { annotate(p, { [mainKey]: 'runtime/default' }); main(p).securityContext = { seccompProfile: profile('Unconfined') }; },
      ['spec.containers[0].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match']],
  ])('refuses %s', (_what, change, messages) => expectRefused(change, ...messages));

  it('accepts the known forms, and a field and annotation that agree', () => {
    const pod = valid();
    annotate(pod, { [podKey]: 'docker/default', [mainKey]: 'localhost/a.json', 'container.seccomp.security.alpha.kubernetes.io/setup': 'unconfined' });
    pod.spec.securityContext = { seccompProfile: profile('RuntimeDefault') };
    main(pod).securityContext = { seccompProfile: profile('Localhost', 'a.json') };
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: AppArmor annotations (ValidateAppArmorPodAnnotations)', () => {
  const key = (name: string) => `container.apparmor.security.beta.kubernetes.io/${name}`;
  it('refuses a profile of no known form, and an annotation for a container the pod does not have', () => expectRefused(
    (p) => annotate(p, { [key('main')]: 'runtime/defualt', [key('nope')]: 'unconfined' }),
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/main]: Invalid value: "runtime/defualt": invalid AppArmor profile name: "runtime/defualt"',
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "nope": container not found',
  ));

  it('accepts the known forms for init and regular containers', () => {
    const pod = valid();
    annotate(pod, { [key('main')]: 'localhost/k8s-deny-write', [key('setup')]: 'runtime/default' });
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: sysctls (validateSysctls, IsValidSysctlName)', () => {
  const pattern = 'must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';
  it('refuses an empty segment, a trailing space, upper case, a trailing dash, a missing name, a duplicate and a name over 253', () => expectRefused(
    (p) => {
      p.spec.securityContext = {
        sysctls: [
          { name: 'net..ipv4.ip_forward', value: '1' }, { name: 'kernel.shm_rmid_forced ', value: '1' }, { name: '', value: '1' },
          { name: 'net/ipv4/ping_group_range', value: '0 1' }, { name: 'net/ipv4/ping_group_range', value: '0 2' },
          { name: 'Net.ipv4.ip_forward', value: '1' }, { name: 'kernel-', value: '1' }, { name: 'a'.repeat(254), value: '1' },
        ],
      };
    },
    `spec.securityContext.sysctls[0].name: Invalid value: "net..ipv4.ip_forward": ${pattern}`,
    `spec.securityContext.sysctls[1].name: Invalid value: "kernel.shm_rmid_forced ": ${pattern}`,
    'spec.securityContext.sysctls[2].name: Required value',
    'spec.securityContext.sysctls[4].name: Duplicate value: "net/ipv4/ping_group_range"',
    `spec.securityContext.sysctls[5].name: Invalid value: "Net.ipv4.ip_forward": ${pattern}`,
    `spec.securityContext.sysctls[6].name: Invalid value: "kernel-": ${pattern}`,
    `spec.securityContext.sysctls[7].name: Invalid value: "${'a'.repeat(254)}": ${pattern}`,
  ));

  it('accepts dotted and slashed names with underscores and dashes, up to 253 characters', () => {
    const pod = valid();
    pod.spec.securityContext = { sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65535' }, { name: 'net/ipv4/conf/eth0.100/rp_filter', value: '1' }, { name: 'a'.repeat(253), value: '' }] };
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: the rest of the security contexts (ValidateSecurityContext, validatePodSpecSecurityContext)', () => {
  it.each<[string, (p: Pod) => void, string[]]>([
    ['a procMount of no known type', (p) => { main(p).securityContext = { procMount: 'Masked' as 'Default' }; },
      ['spec.containers[0].securityContext.procMount: Unsupported value: "Masked": supported values: "Default", "Unmasked"']],
    ['allowPrivilegeEscalation false with privileged and CAP_SYS_ADMIN', (p) => { main(p).securityContext = { allowPrivilegeEscalation: false, privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] } }; }, [
      'spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true,"capabilities":{"add":["CAP_SYS_ADMIN"]}}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
      'spec.containers[0].securityContext: Invalid value: {"allowPrivilegeEscalation":false,"privileged":true,"capabilities":{"add":["CAP_SYS_ADMIN"]}}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
    ]],
    ['a shared process namespace with hostPID', (p) => { p.spec.shareProcessNamespace = true; p.spec.hostPID = true; },
      ['spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled']],
    ['an fsGroupChangePolicy of no known value', (p) => { p.spec.securityContext = { fsGroupChangePolicy: 'Sometimes' }; },
      ['spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"']],
    ['a pod with its own user namespace sharing the host\'s network, PID and IPC namespaces', (p) => { p.spec.hostUsers = false; p.spec.hostNetwork = true; p.spec.hostPID = true; p.spec.hostIPC = true; }, [
      'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false',
      'spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false',
      'spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false',
    ]],
  ])('refuses %s', (_what, change, messages) => expectRefused(change, ...messages));

  it('accepts free-text seLinuxOptions, as Go v1.26 does, a known fsGroupChangePolicy, and host namespaces with the host\'s user namespace', () => {
    const pod = valid();
    pod.spec.securityContext = { seLinuxOptions: { user: 'system_u', role: 'system_r', type: 'container_t', level: 's0:c1,c2' }, fsGroupChangePolicy: 'OnRootMismatch' };
    Object.assign(pod.spec, { hostUsers: true, hostNetwork: true, hostPID: true });
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: ephemeral containers are refused on create', () => {
  it('refuses a static pod that lists ephemeralContainers', () => expectRefused(
    (p) => { p.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox:1.36' }]; },
    'spec.ephemeralContainers: Forbidden: cannot be set on create',
  ));
});

describe('validatePod: Windows settings (validateWindowsSecurityContextOptions, validateWindowsHostProcessPod, validateOS)', () => {
  const at = 'spec.securityContext.windowsOptions';
  it.each<[string, (p: Pod) => void, string[]]>([
    ['a credential spec name that is not a subdomain, an empty spec and an empty user name', (p) => { p.spec.securityContext = { windowsOptions: { gmsaCredentialSpecName: 'Bad_Name', gmsaCredentialSpec: '', runAsUserName: '' } }; }, [
      `${at}.gmsaCredentialSpecName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${at}.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`,
      `${at}.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`,
    ]],
    ['two backslashes in a container\'s user name', (p) => { main(p).securityContext = { windowsOptions: { runAsUserName: 'a\\b\\c' } }; },
      ['spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash']],
    ['a user of periods only', (p) => { p.spec.securityContext = { windowsOptions: { runAsUserName: 'dom.ain\\...' } }; },
      [`${at}.runAsUserName: Invalid value: "dom.ain\\\\...": runAsUserName's User cannot contain only periods or spaces`]],
    ['a forbidden character in the user', (p) => { p.spec.securityContext = { windowsOptions: { runAsUserName: 'us@er' } }; },
      [`${at}.runAsUserName: Invalid value: "us@er": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]],
    ['a control character', (p) => { p.spec.securityContext = { windowsOptions: { runAsUserName: 'x\u0001y' } }; },
      [`${at}.runAsUserName: Invalid value: "x\\u0001y": runAsUserName cannot contain control characters`]],
    ['a hostProcess pod off the host network', (p) => { p.spec.securityContext = { windowsOptions: { hostProcess: true } }; },
      ['spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers']],
    ['a container disagreeing with the pod\'s hostProcess', (p) => { p.spec.hostNetwork = true; p.spec.securityContext = { windowsOptions: { hostProcess: true } }; main(p).securityContext = { windowsOptions: { hostProcess: false } }; }, [
      'spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
      'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
    ]],
    ['an OS name of no known form', (p) => { p.spec.os = { name: 'Linux' }; }, ['spec.os: Unsupported value: "Linux": supported values: "linux", "windows"']],
    ['an empty OS name', (p) => { p.spec.os = { name: '' }; }, ['spec.os.name: Required value: cannot be empty']],
    ['windowsOptions on a linux pod', (p) => { p.spec.os = { name: 'linux' }; p.spec.initContainers![0]!.securityContext = { windowsOptions: { runAsUserName: 'x' } }; },
      ['spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod']],
    ['Linux settings on a windows pod', (p) => { p.spec.os = { name: 'windows' }; p.spec.hostIPC = true; p.spec.securityContext = { sysctls: [{ name: 'a', value: 'b' }] }; main(p).securityContext = { privileged: false }; }, [
      'spec.hostIPC: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod',
      'spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod',
    ]],
  ])('refuses %s', (_what, change, messages) => expectRefused(change, ...messages));

  it('refuses a credential spec over 64 KiB, a domain of 256 (and a label over 63) and a user of 105', () => {
    const pod = valid();
    const name = `${'d'.repeat(256)}\\${'u'.repeat(105)}`;
    pod.spec.securityContext = { windowsOptions: { gmsaCredentialSpec: 'x'.repeat(64 * 1024 + 1), runAsUserName: name } };
    // The values are long: compare what follows them.
    expect(validatePod(pod).map((e) => e.replace(/: Invalid value: ".*": /, ': … : '))).toEqual([
      `${at}.gmsaCredentialSpec: … : gmsaCredentialSpec size must be under 64 KiB`,
      `${at}.runAsUserName: … : runAsUserName's Domain length must be under 256 characters`,
      `${at}.runAsUserName: … : runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
      `${at}.runAsUserName: … : runAsUserName's User length must not be longer than 104 characters`,
    ]);
  });

  it('accepts DOMAIN\\user names, a hostProcess pod on the host network, and a linux pod without windowsOptions', () => {
    const pod = valid();
    pod.spec.hostNetwork = true;
    pod.spec.securityContext = { windowsOptions: { runAsUserName: 'CORP\\svc-web', gmsaCredentialSpecName: 'webapp.gmsa', hostProcess: true } };
    main(pod).securityContext = { windowsOptions: { runAsUserName: 'corp.example.com\\ContainerUser' } };
    expect(validatePod(pod)).toEqual([]);
    expect(validatePod({ ...valid(), spec: { ...valid().spec, os: { name: 'linux' } } })).toEqual([]);
  });
});
