/**
 * What the streaming server runs behind each session it accepted: an exec (exec-session.ts), an
 * attach (attach-session.ts), or the host-network dialer of a port forward (port-dialer.ts), held
 * to the pod's declared ports (port-forward-rules.ts). A session that fails unexpectedly still
 * ends, with an internal error on its error channel.
 */
import type { Logger } from '../../../log.js';
import type { RemoteCommandSession } from '../../stream-protocols/sessions.js';
import { runAttachSession } from './attach-session.js';
import { runExecSession } from './exec-session.js';
import { hostNetworkDialer } from './port-dialer.js';
import type { PortForwardRules } from './port-forward-rules.js';
import type { RuntimeState } from '../state/runtime-state.js';
import type { StreamHandlers } from './streaming-server.js';

export function streamHandlers(state: RuntimeState, forwarding: PortForwardRules, logger: Logger): StreamHandlers {
  const guarded = (what: string, session: RemoteCommandSession, run: Promise<void>): void => {
    run.catch((err: unknown) => {
      logger.warn({ err, what }, 'Streaming session failed');
      session.finish({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
    });
  };
  return {
    exec: (request, session) => guarded('exec', session, runExecSession(state, { containerId: request.containerId, cmd: request.cmd }, session)),
    attach: (request, session) => guarded('attach', session, runAttachSession(state, request.containerId, session)),
    dialer: (request) => hostNetworkDialer(request.podSandboxId, (port) => forwarding.refusal(request.podSandboxId, port)),
  };
}
