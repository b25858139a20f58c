/**
 * CRI Exec, Attach and PortForward: check the request, then hand out a single-use URL of the
 * streaming server (streaming/streaming-server.ts). As with containerd, the container (or sandbox)
 * is looked up and must be running before Go's streaming checks run (container_id given, no stderr
 * under a TTY, at least one stream), with Go's messages.
 */
import { KubeletError } from '../../../domain/errors.js';
import type { AttachRequest__Output } from '../../../generated/runtime/v1/AttachRequest.js';
import type { ExecRequest__Output } from '../../../generated/runtime/v1/ExecRequest.js';
import type { PortForwardRequest__Output } from '../../../generated/runtime/v1/PortForwardRequest.js';
import { requireRunningContainer } from './exec.js';
import type { RuntimeState } from '../state/runtime-state.js';
import type { StreamingServer } from './streaming-server.js';

interface Streams {
  container_id: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

function checkStreams(r: Streams, atLeastOne: string): void {
  if (!r.container_id) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'missing required container_id');
  // A terminal has one output: stderr cannot be told apart from stdout.
  if (r.tty && r.stderr) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'tty and stderr cannot both be true');
  if (!r.stdin && !r.stdout && !r.stderr) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', atLeastOne);
}

function options(r: Streams): { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean } {
  return { stdin: r.stdin, stdout: r.stdout, stderr: r.stderr, tty: r.tty };
}

export async function execUrl(state: RuntimeState, server: StreamingServer, r: ExecRequest__Output): Promise<string> {
  if (!r.container_id) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'missing required container_id');
  const container = await requireRunningContainer(state, r.container_id, 'exec');
  checkStreams(r, 'one of stdin, stdout, or stderr must be set');
  if (r.cmd.length === 0) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'exec command must not be empty');
  return server.urlFor({ kind: 'exec', containerId: container.id, cmd: [...r.cmd], options: options(r) });
}

export async function attachUrl(state: RuntimeState, server: StreamingServer, r: AttachRequest__Output): Promise<string> {
  if (!r.container_id) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'missing required container_id');
  const container = await requireRunningContainer(state, r.container_id, 'attach');
  checkStreams(r, 'one of stdin, stdout, and stderr must be set');
  if (r.tty || container.tty) {
    throw new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', `container ${container.id}: the embedded runtime cannot attach with a TTY: it runs containers without a terminal (ContainerConfig.tty is not honoured); attach without -t, or use exec -t`);
  }
  return server.urlFor({ kind: 'attach', containerId: container.id, options: options(r) });
}

/**
 * The ports are checked against the pod's when dialled (port-forward-rules.ts), not here: a refusal
 * then reaches the client on the port's error stream, in words, as a dial failure does (a failed
 * PortForward call reaches it as a bare HTTP 500).
 */
export function portForwardUrl(state: RuntimeState, server: StreamingServer, r: PortForwardRequest__Output): string {
  if (!r.pod_sandbox_id) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'missing required pod_sandbox_id');
  const sandbox = state.requireSandbox(r.pod_sandbox_id);
  if (sandbox.state !== 'SANDBOX_READY') throw new KubeletError('KLT_ERR_CRI_FAILED', `sandbox container ${JSON.stringify(sandbox.id)} is not running`);
  const ports = r.port.filter((p) => p > 0 && p <= 0xffff);
  if (ports.length !== r.port.length) throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', `invalid port in ${JSON.stringify(r.port)}: ports are 1–65535`);
  return server.urlFor({ kind: 'portforward', podSandboxId: sandbox.id, ports });
}
