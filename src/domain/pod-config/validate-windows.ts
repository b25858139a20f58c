/**
 * What Go's ValidatePodCreate checks of Windows settings, on any node: the windowsOptions of the pod
 * and of each container (validateWindowsSecurityContextOptions), hostProcess containers
 * (validateWindowsHostProcessPod), and spec.os: a Linux pod may not carry windowsOptions, a Windows
 * pod none of the Linux-only settings (validateOS, validateLinux, validateWindows). A Linux kubelet
 * sends none of the Windows options to the runtime; a Windows pod is refused by admission.
 */
import type { PodSpec, SecurityContext, WindowsSecurityContextOptions } from '../pod/types.js';
import { DNS1123_SUBDOMAIN } from '../names/dns1123.js';
import { containersWithPaths } from './container-paths.js';
import { forbidden, invalid, notSupported, required } from './field-errors.js';

/** Go's maxGMSACredentialSpecLengthInKiB: a credential spec's contents. */
export const MAX_GMSA_CREDENTIAL_SPEC_KIB = 64;
/** Go's maxRunAsUserNameDomainLength: a domain must be shorter than this. */
export const MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH = 256;
/** Go's maxRunAsUserNameUserLength. */
export const MAX_RUN_AS_USER_NAME_USER_LENGTH = 104;
/** IsDNS1123Subdomain's limit. */
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const DNS1123_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;
const NETBIOS_DOMAIN = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
/** Labels of at most 63 characters, either case. */
const DNS_DOMAIN = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const USER_NAME_FORBIDDEN_CHARACTER = /["/\\:;|=,+*?<>@[\]]/;
const ONLY_DOTS_AND_SPACES = /^[. ]+$/;
const OS_NAMES = ['linux', 'windows'];
const bytes = (s: string): number => Buffer.byteLength(s);

/** validateWindowsSecurityContextOptions, at `path` (`….securityContext.windowsOptions`). */
export function windowsOptionsErrors(path: string, options: WindowsSecurityContextOptions | undefined): string[] {
  if (options === undefined) return [];
  const errors: string[] = [];
  const specName = options.gmsaCredentialSpecName;
  if (specName !== undefined) {
    const at = `${path}.gmsaCredentialSpecName`;
    if (specName.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(invalid(at, specName, `must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`));
    if (!DNS1123_SUBDOMAIN.test(specName)) errors.push(invalid(at, specName, DNS1123_SUBDOMAIN_MESSAGE));
  }
  const spec = options.gmsaCredentialSpec;
  if (spec !== undefined) {
    const at = `${path}.gmsaCredentialSpec`;
    if (spec === '') errors.push(invalid(at, spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (bytes(spec) > MAX_GMSA_CREDENTIAL_SPEC_KIB * 1024) errors.push(invalid(at, spec, `gmsaCredentialSpec size must be under ${MAX_GMSA_CREDENTIAL_SPEC_KIB} KiB`));
  }
  if (options.runAsUserName !== undefined) errors.push(...runAsUserNameErrors(`${path}.runAsUserName`, options.runAsUserName));
  return errors;
}

/** A `[DOMAIN\]USER` name: one backslash at most, a NetBIOS or DNS domain, a user of allowed characters. */
function runAsUserNameErrors(path: string, name: string): string[] {
  const wrong = (why: string) => invalid(path, name, why);
  if (name === '') return [wrong('runAsUserName cannot be an empty string')];
  if (CONTROL_CHARACTER.test(name)) return [wrong('runAsUserName cannot contain control characters')];
  const parts = name.split('\\');
  if (parts.length > 2) return [wrong('runAsUserName cannot contain more than one backslash')];
  const [domain, user] = parts.length === 2 ? [parts[0]!, parts[1]!] : [undefined, parts[0]!];
  const errors: string[] = [];
  if (domain !== undefined) {
    if (bytes(domain) >= MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH) errors.push(wrong(`runAsUserName's Domain length must be under ${MAX_RUN_AS_USER_NAME_DOMAIN_LENGTH} characters`));
    if (!NETBIOS_DOMAIN.test(domain) && !DNS_DOMAIN.test(domain)) errors.push(wrong("runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
  }
  if (user === '') errors.push(wrong("runAsUserName's User cannot be empty"));
  else if (bytes(user) > MAX_RUN_AS_USER_NAME_USER_LENGTH) errors.push(wrong(`runAsUserName's User length must not be longer than ${MAX_RUN_AS_USER_NAME_USER_LENGTH} characters`));
  if (ONLY_DOTS_AND_SPACES.test(user)) errors.push(wrong("runAsUserName's User cannot contain only periods or spaces"));
  if (USER_NAME_FORBIDDEN_CHARACTER.test(user)) errors.push(wrong('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'));
  return errors;
}

/** validateWindowsHostProcessPod: all containers or none are hostProcess, the pod's setting and a container's agree, on the host network. */
export function hostProcessErrors(spec: PodSpec): string[] {
  const podHostProcess = spec.securityContext?.windowsOptions?.hostProcess;
  const errors: string[] = [];
  const containers = containersWithPaths(spec);
  let hostProcessCount = 0;
  for (const [path, container] of containers) {
    const own = container.securityContext?.windowsOptions?.hostProcess;
    if (podHostProcess !== undefined && own !== undefined && own !== podHostProcess) {
      errors.push(invalid(`${path}.securityContext.windowsOptions.hostProcess`, own, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if ((own ?? podHostProcess) === true) hostProcessCount++;
  }
  if (hostProcessCount > 0) {
    if (hostProcessCount !== containers.length) errors.push(invalid('spec', '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (spec.hostNetwork !== true) errors.push(invalid('spec.hostNetwork', false, 'hostNetwork must be true if pod contains any hostProcess containers'));
  }
  return errors;
}

/** validateOS, then validateLinux or validateWindows by the OS it names. */
export function podOsErrors(spec: PodSpec): string[] {
  if (spec.os === undefined) return [];
  const { name } = spec.os;
  if (!name) return [required('spec.os.name', 'cannot be empty')];
  // Go reports an unknown name at spec.os, not spec.os.name.
  if (!OS_NAMES.includes(name)) return [notSupported('spec.os', name, OS_NAMES)];
  return name === 'linux' ? linuxPodErrors(spec) : windowsPodErrors(spec);
}

function linuxPodErrors(spec: PodSpec): string[] {
  const notHere = 'windows options cannot be set for a linux pod';
  const errors = spec.securityContext?.windowsOptions ? [forbidden('spec.securityContext.windowsOptions', notHere)] : [];
  for (const [path, container] of containersWithPaths(spec)) {
    if (container.securityContext?.windowsOptions) errors.push(forbidden(`${path}.securityContext.windowsOptions`, notHere));
  }
  return errors;
}

const CONTAINER_LINUX_ONLY: readonly (keyof SecurityContext)[] = [
  'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup',
];

function windowsPodErrors(spec: PodSpec): string[] {
  const notHere = (path: string) => forbidden(path, 'cannot be set for a windows pod');
  const sc = spec.securityContext;
  const pod: [string, boolean][] = [
    ['spec.hostPID', spec.hostPID === true],
    ['spec.hostIPC', spec.hostIPC === true],
    ['spec.securityContext.seLinuxOptions', sc?.seLinuxOptions !== undefined],
    ['spec.securityContext.seccompProfile', sc?.seccompProfile !== undefined],
    ['spec.securityContext.fsGroup', sc?.fsGroup !== undefined],
    ['spec.securityContext.fsGroupChangePolicy', sc?.fsGroupChangePolicy !== undefined],
    ['spec.securityContext.sysctls', (sc?.sysctls ?? []).length > 0],
    ['spec.shareProcessNamespace', spec.shareProcessNamespace !== undefined],
    ['spec.securityContext.runAsUser', sc?.runAsUser !== undefined],
    ['spec.securityContext.runAsGroup', sc?.runAsGroup !== undefined],
    ['spec.securityContext.supplementalGroups', sc?.supplementalGroups !== undefined],
  ];
  const errors = pod.filter(([, set]) => set).map(([path]) => notHere(path));
  for (const [path, container] of containersWithPaths(spec)) {
    const csc = container.securityContext;
    for (const field of CONTAINER_LINUX_ONLY) if (csc?.[field] !== undefined) errors.push(notHere(`${path}.securityContext.${field}`));
  }
  return errors;
}
