/**
 * How the pod resources socket bounds its connections. The socket is mounted into monitoring pods,
 * so its clients are less trusted than the kubelet's plugins: a client that opens connections and
 * never speaks must not hold the kubelet's descriptors for ever.
 */
import type { FrontBounds } from '../h2/authority-proxy.js';

/**
 * gRPC's server ConnectionTimeout default (grpc-go's defaultServerOptions, which Go's pod resources
 * server keeps): a connection that has not sent the HTTP/2 preface (magic and SETTINGS) by then is
 * closed. @grpc/grpc-js has no such bound, so the front applies it.
 */
export const PREFACE_TIMEOUT_MS = 120_000;

/**
 * Open connections on the socket; past them a new one is closed as it comes. Go sets no bound, but a
 * connection costs one descriptor there and three here (the front's two and the server's). A node
 * has a few clients of this API (a device exporter, a topology updater), each holding one channel,
 * so this leaves room for many and still keeps a flood to a few hundred descriptors.
 */
export const MAX_CONNECTIONS = 100;

export const POD_RESOURCES_FRONT_BOUNDS: FrontBounds = { maxConnections: MAX_CONNECTIONS, prefaceTimeoutMs: PREFACE_TIMEOUT_MS };
