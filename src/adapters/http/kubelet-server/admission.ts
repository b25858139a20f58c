/**
 * Authentication then authorization of every request to the kubelet server, before it is routed
 * (an unknown path is refused to a caller who may not ask): 401 `Unauthorized`, or the
 * authorizer's 403 or 500 with Go's wording, as plain text.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { nodeRequestAttributes } from '../../../domain/kubelet-server/request-attributes.js';
import type { SubjectAccessReviewer, TokenReviewer } from '../../../ports/kubelet-view.js';
import type { ClientCertificateVerifier } from '../tls/client-certificates.js';
import { authenticateRequest } from './authenticate.js';
import { authorizeRequest, type AuthorizationMode } from './authorize.js';
import { replyText } from './reply.js';

export interface KubeletServerAuth {
  anonymous: boolean;
  clientCAFile?: string;
  authorizationMode: AuthorizationMode;
  tokenReviewer?: TokenReviewer;
  accessReviewer?: SubjectAccessReviewer;
  /** The node's name in authorization attributes; defaults to the TLS hostname. */
  nodeName?: string;
  /** KubeletFineGrainedAuthz (default true, as Go since 1.33). */
  fineGrainedAuthz?: boolean;
}

/** True: go on; false: the request was refused and answered. */
export type Admission = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

export function createAdmission(auth: KubeletServerAuth & { nodeName: string }, clientCertificates?: ClientCertificateVerifier, logger?: Logger): Admission {
  return async (req, res, path) => {
    const who = await authenticateRequest(req, { anonymous: auth.anonymous, clientCertificates: clientCertificates?.verdictOf, tokenReviewer: auth.tokenReviewer });
    if (!who.ok) {
      logger?.debug({ reason: who.reason, path: req.url }, 'Unauthorized request to kubelet server');
      replyText(res, 401, 'Unauthorized');
      return false;
    }
    const attrs = nodeRequestAttributes(who.user, req.method ?? 'GET', path, auth.nodeName, auth.fineGrainedAuthz ?? true);
    const decision = await authorizeRequest(auth.authorizationMode, auth.accessReviewer, attrs);
    if (decision.allowed) return true;
    if (decision.status === 500) logger?.error({ reason: decision.reason, user: who.user.name }, 'Authorization error');
    else logger?.debug({ reason: decision.reason, user: who.user.name, path }, 'Forbidden');
    replyText(res, decision.status, decision.body);
    return false;
  };
}
