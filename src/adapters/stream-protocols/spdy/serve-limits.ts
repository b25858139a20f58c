/**
 * The limits a SPDY server call takes, with Go's defaults: the kubelet's
 * streamingConnectionIdleTimeout (4 h) and the remotecommand/portforward stream-creation timeout
 * (30 s: how long the client has to open every stream an exec needs, or the second of a port pair).
 */
import { DEFAULT_SESSION_LIMITS, type SpdySessionLimits } from './session.js';

export interface SpdyServeLimits extends Partial<SpdySessionLimits> {
  streamCreationTimeoutMs?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 4 * 60 * 60 * 1000;
export const DEFAULT_STREAM_CREATION_TIMEOUT_MS = 30_000;

export function resolveServeLimits(limits: SpdyServeLimits = {}): { session: SpdySessionLimits; streamCreationTimeoutMs: number } {
  return {
    session: {
      idleTimeoutMs: limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      maxConcurrentStreams: limits.maxConcurrentStreams ?? DEFAULT_SESSION_LIMITS.maxConcurrentStreams,
      maxHeaderBlockBytes: limits.maxHeaderBlockBytes ?? DEFAULT_SESSION_LIMITS.maxHeaderBlockBytes,
      closeGraceMs: limits.closeGraceMs ?? DEFAULT_SESSION_LIMITS.closeGraceMs,
    },
    streamCreationTimeoutMs: limits.streamCreationTimeoutMs ?? DEFAULT_STREAM_CREATION_TIMEOUT_MS,
  };
}
