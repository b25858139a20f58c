/**
 * The errors a volume's content can fail with, as the Go plugins word them: an API object that is
 * not there (the kubelet's ConfigMap and Secret managers answer `configmap "x" not found`), and the
 * aggregate the downward API and projected plugins return when several items fail
 * (k8s.io/apimachinery utilerrors.NewAggregate).
 */
import { KubeletError } from '../errors.js';

/** A ConfigMap or Secret the volume names does not exist (retried: it may be created later). */
export function objectNotFound(kind: 'configmap' | 'secret', name: string): KubeletError {
  return new KubeletError('KLT_ERR_API_NOT_FOUND', `${kind} "${name}" not found`, { retryable: true });
}

/**
 * Several failures as one error, worded as Go's aggregate: one distinct message alone, more as
 * `[first, second]` (duplicates dropped, order kept). The code is the first failure's; it is
 * retryable when any part is. undefined when nothing failed.
 */
export function aggregateErrors(errors: readonly KubeletError[]): KubeletError | undefined {
  const [first] = errors;
  if (first === undefined) return undefined;
  if (errors.length === 1) return first;
  const messages = [...new Set(errors.map((e) => e.message))];
  const message = messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
  return new KubeletError(first.code, message, { cause: errors, retryable: errors.some((e) => e.retryable) });
}

/** Whatever a field-ref helper threw, as one of ours (those helpers throw KubeletError already). */
export function asKubeletError(err: unknown): KubeletError {
  if (err instanceof KubeletError) return err;
  return new KubeletError('KLT_ERR_INTERNAL', err instanceof Error ? err.message : String(err), { cause: err });
}
