/**
 * What the embedded runtime cannot do and so refuses rather than do something weaker: it has one
 * way to run a pod (host processes), so any runtime handler named is refused, and it has no user
 * namespaces, so a sandbox or container asking for one of its own (mode POD) is refused. Asking for
 * the host's (mode NODE) is what it does anyway and is accepted. Its containers are host processes
 * with the host's /dev, so a device given to one (a raw block volume) cannot be placed: refused.
 */
import { KubeletError } from '../../../domain/errors.js';
import type { NamespaceOption__Output } from '../../../generated/runtime/v1/NamespaceOption.js';

export function refuseRuntimeHandler(runtimeHandler: string): void {
  if (runtimeHandler === '') return;
  throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `runtime_handler ${JSON.stringify(runtimeHandler)} is not supported by the embedded runtime, which has only the default handler ""`);
}

export function refuseUserNamespace(what: 'sandbox' | 'container', options: NamespaceOption__Output | null | undefined): void {
  const userns = options?.userns_options;
  if (!userns || userns.mode === 'NODE') return;
  throw new KubeletError(
    'KLT_ERR_CRI_INVALID_ARGUMENT',
    `${what} linux.security_context.namespace_options.userns_options mode ${userns.mode} is not supported by the embedded runtime, which has no user namespaces; only NODE is`,
  );
}

export function refuseDevices(devices: readonly { container_path?: string }[] | null | undefined): void {
  if (!devices || devices.length === 0) return;
  const paths = devices.map((d) => JSON.stringify(d.container_path ?? '')).join(', ');
  throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `container devices (${paths}) are not supported by the embedded runtime, whose containers see the host's /dev`);
}
