/**
 * Asking the API server for a certificate (client-go's util/certificate/csr: RequestCertificate and
 * WaitForCertificate): create a CertificateSigningRequest with the PEM request, the signer and the
 * usages (an existing one of the same name is reused when it carries the same request, as Go's
 * digest-named CSRs are after a restart), then follow it until it is issued, denied or failed.
 *
 * Following: a GET, then a watch on its name from that version; when the watch ends, again. Go
 * watches the same way (a ListWatch with a name field selector) and gives up after its context's
 * deadline (the bootstrap's hour).
 */
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import { toApiError } from '../apiserver/api-errors.js';
import { HttpStatusError, type RestClient } from '../apiserver/rest-client.js';
import { readWatchEvents } from '../apiserver/watch-stream.js';

const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

export interface CsrSpec {
  /** Empty: the server names it (generateName `csr-`), as Go's RequestCertificate does without a name. */
  name: string;
  requestPem: string;
  signerName: string;
  usages: readonly string[];
  expirationSeconds?: number;
}

interface Condition { type?: string; status?: string; reason?: string; message?: string }
interface CsrObject {
  metadata?: { name?: string; uid?: string; resourceVersion?: string };
  spec?: { request?: string; signerName?: string };
  status?: { conditions?: Condition[]; certificate?: string };
}

/** Where a CSR stands, read from its conditions and status (WaitForCertificate's checks). */
export type CsrState =
  | { state: 'pending' }
  | { state: 'approved' }
  | { state: 'issued'; certificatePem: string }
  | { state: 'denied' | 'failed'; reason: string; message: string };

export function csrState(csr: CsrObject): CsrState {
  let approved = false;
  for (const c of csr.status?.conditions ?? []) {
    // A condition without a status is True (certificates/v1 made status required later).
    if (c.status !== undefined && c.status !== 'True') continue;
    if (c.type === 'Denied' || c.type === 'Failed') return { state: c.type === 'Denied' ? 'denied' : 'failed', reason: c.reason ?? '', message: c.message ?? '' };
    if (c.type === 'Approved') approved = true;
  }
  if (!approved) return { state: 'pending' };
  const certificate = csr.status?.certificate;
  return certificate ? { state: 'issued', certificatePem: Buffer.from(certificate, 'base64').toString('utf8') } : { state: 'approved' };
}

export interface WaitOptions {
  clock: Clock;
  signal: AbortSignal;
  /** Each new state while it is not final, for the phase's waiting reason. */
  onState: (name: string, state: 'pending' | 'approved') => void;
  timeoutMs: number;
}

/** Creates the CSR (or reuses a compatible one of the same name); resolves with its name and uid. */
export async function createCsr(rest: RestClient, spec: CsrSpec): Promise<{ name: string; uid: string }> {
  const body = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: spec.name === '' ? { generateName: 'csr-' } : { name: spec.name },
    spec: {
      request: Buffer.from(spec.requestPem).toString('base64'),
      signerName: spec.signerName,
      usages: spec.usages,
      ...(spec.expirationSeconds !== undefined ? { expirationSeconds: spec.expirationSeconds } : {}),
    },
  };
  let created: CsrObject;
  try {
    created = await rest.request<CsrObject>('POST', CSR_PATH, { body });
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.code === 409 && spec.name !== '')) throw toApiError(err, `create certificate signing request ${spec.name || '(csr-…)'}`);
    created = await rest.request<CsrObject>('GET', `${CSR_PATH}/${encodeURIComponent(spec.name)}`).catch((e: unknown) => {
      throw toApiError(e, `get certificate signing request ${spec.name}`);
    });
    if (created.spec?.request !== body.spec.request || created.spec?.signerName !== spec.signerName) {
      throw new KubeletError('KLT_ERR_BOOTSTRAP', `certificate signing request ${spec.name} exists with another request or signer`);
    }
  }
  return { name: created.metadata?.name ?? spec.name, uid: created.metadata?.uid ?? '' };
}

/** Follows the CSR until it is issued (its PEM certificate); throws KLT_ERR_BOOTSTRAP when it is denied, failed, replaced or late. */
export async function waitForCertificate(rest: RestClient, csr: { name: string; uid: string }, opts: WaitOptions): Promise<string> {
  const deadline = opts.clock.now() + opts.timeoutMs;
  let last: 'pending' | 'approved' | null = null;
  const judge = (obj: CsrObject): string | null => {
    if (csr.uid !== '' && obj.metadata?.uid !== undefined && obj.metadata.uid !== csr.uid) {
      throw new KubeletError('KLT_ERR_BOOTSTRAP', `certificate signing request ${csr.name} changed UIDs`);
    }
    const s = csrState(obj);
    if (s.state === 'issued') return s.certificatePem;
    if (s.state === 'denied') throw new KubeletError('KLT_ERR_BOOTSTRAP', `certificate signing request ${csr.name} is denied, reason: ${s.reason}, message: ${s.message}`);
    if (s.state === 'failed') throw new KubeletError('KLT_ERR_BOOTSTRAP', `certificate signing request ${csr.name} failed, reason: ${s.reason}, message: ${s.message}`);
    if (s.state !== last) opts.onState(csr.name, s.state);
    last = s.state;
    return null;
  };
  const path = `${CSR_PATH}/${encodeURIComponent(csr.name)}`;
  let lastError: unknown = null;
  while (!opts.signal.aborted) {
    const startedAtMs = opts.clock.now();
    const remainingMs = deadline - startedAtMs;
    if (remainingMs <= 0) {
      const why = lastError === null ? '' : ` (last error: ${(lastError as Error).message})`;
      throw new KubeletError('KLT_ERR_BOOTSTRAP', `certificate signing request ${csr.name} was not issued within ${Math.round(opts.timeoutMs / 1000)}s${why}`);
    }
    try {
      const current = await rest.request<CsrObject>('GET', path, { signal: opts.signal });
      const issued = judge(current);
      if (issued !== null) return issued;
      const watched = await watchUntilChange(rest, csr.name, current.metadata?.resourceVersion, Math.ceil(Math.min(remainingMs, 300_000) / 1000), opts.signal, judge);
      if (watched !== null) return watched;
      lastError = null;
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_BOOTSTRAP') throw err;
      // The API server may come and go while the CSR waits: try again until the deadline, as Go's watch does.
      lastError = toApiError(err, `get certificate signing request ${csr.name}`);
    }
    // A watch that ended at once (or a failed GET) is not retried in a tight loop.
    const elapsed = opts.clock.now() - startedAtMs;
    if (elapsed < 1000) await new Promise<void>((r) => opts.clock.setTimeout(() => r(), 1000 - elapsed));
  }
  throw new KubeletError('KLT_ERR_BOOTSTRAP', `waiting for certificate signing request ${csr.name} was stopped`);
}

/** One watch on the CSR: the certificate once issued, or null when the watch ended first (errors end it too: the caller GETs again). */
function watchUntilChange(
  rest: RestClient, name: string, resourceVersion: string | undefined, timeoutSeconds: number, signal: AbortSignal, judge: (obj: CsrObject) => string | null,
): Promise<string | null> {
  return new Promise((resolve, reject) => {
    rest.stream(CSR_PATH, {
      query: { watch: true, fieldSelector: `metadata.name=${name}`, resourceVersion, timeoutSeconds }, signal,
    }).then((stream) => {
      readWatchEvents(stream, {
        onEvent: (type, object) => {
          if (type !== 'ADDED' && type !== 'MODIFIED') return;
          try {
            const issued = judge(object as CsrObject);
            if (issued !== null) {
              stream.destroy();
              resolve(issued);
            }
          } catch (err) {
            stream.destroy();
            reject(err);
          }
        },
        onEnd: () => resolve(null),
      });
    }, () => resolve(null));
  });
}
