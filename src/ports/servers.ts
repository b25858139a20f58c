/**
 * The HTTP servers the phases start (debug, kubelet and read-only, healthz); each answers with the
 * address it listens on and a close. Implemented over node:http / node:https in src/adapters (the
 * debug server over fastify).
 */
export interface DebugServerStarter {
  start(address: string): Promise<{ address: string; listening?: boolean; close: () => Promise<void> }>;
  /** The debug server will not run in this process: what only it would show need not be kept. */
  off(): void;
}

/** The kubelet server (10250, TLS, authn/authz) and the read-only port, over the live kubelet. */
export interface ServerStarter {
  startKubelet(opts: {
    address: string;
    port: number;
    tls: { certFile?: string; keyFile?: string; certDir: string; hostname: string; nodeIPs: string[]; minVersion?: string; cipherSuites?: string[] };
    auth: { anonymous: boolean; clientCAFile?: string; authorizationMode: 'AlwaysAllow' | 'Webhook'; nodeName: string; fineGrainedAuthz: boolean };
    /** Webhook authentication/authorization through the API server (cluster mode), with Go's cache TTLs. */
    webhook?: { authentication: boolean; authorization: boolean; tokenTtlMs: number; authorizedTtlMs: number; unauthorizedTtlMs: number };
    debuggingHandlers: boolean;
    /** Serve the certificate the serving certificate manager obtains, swapped in place (until then, the self-signed pair). */
    serverTLSBootstrap?: boolean;
    /** enableSystemLogHandler: `/logs/` (only with the debugging handlers, as Go). */
    systemLogHandler: boolean;
    /** streamingConnectionIdleTimeout in ms: an exec, attach or port-forward connection silent this long is closed; 0: never. */
    streamingIdleTimeoutMs: number;
  }): Promise<{ address: string; close: () => Promise<void> }>;
  startReadOnly(opts: { address: string; port: number }): Promise<{ address: string; close: () => Promise<void> }>;
}

export interface HealthzStarter {
  start(host: string, port: number): Promise<{ address: string; close: () => Promise<void> }>;
}

/** A serving certificate and key, as PEM. */
export interface ServingPair { certificatePem: string; keyPem: string }

/**
 * serverTLSBootstrap's serving certificate: the cert dir's current `kubelet-server` pair, and each
 * new one the serving certificate manager installs; the kubelet server subscribes and swaps its TLS
 * context in place.
 */
export interface ServingCertificates {
  readonly current: ServingPair | null;
  /** Takes the cert dir's current pair when it is usable now; answers its validity, or why not. */
  load(certDir: string, nowMs: number): { notBeforeMs: number; notAfterMs: number } | { why: string };
  install(pair: ServingPair): void;
  subscribe(listener: (pair: ServingPair) => void): () => void;
}
