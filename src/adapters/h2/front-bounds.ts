/**
 * How the kubelet's two gRPC sockets behind a front (grpc-front.ts) bound their connections: a
 * client that opens connections and never speaks must not hold the kubelet's descriptors for ever.
 * Each connection costs three descriptors here (the front's two and the gRPC server's), one in Go.
 */
import type { FrontBounds } from './authority-proxy.js';

/**
 * gRPC's server ConnectionTimeout default (grpc-go's defaultServerOptions, which Go's pod resources
 * and device plugin registration servers keep): a connection that has not sent the HTTP/2 preface
 * (magic and SETTINGS) by then is closed. @grpc/grpc-js has no such bound, so the front applies it.
 */
export const PREFACE_TIMEOUT_MS = 120_000;

/**
 * Open connections on the pod resources socket; past them a new one is closed as it comes. Go sets
 * no bound. The socket is mounted into monitoring pods; a node has a few clients of this API (a
 * device exporter, a topology updater), each holding one channel, so this leaves room for many and
 * still keeps a flood to a few hundred descriptors.
 */
export const POD_RESOURCES_MAX_CONNECTIONS = 100;

/**
 * Open connections on the device plugins' kubelet.sock. Go sets no bound. Each device plugin holds
 * a connection while it registers, and a node runs a handful of plugins (a GPU, a NIC, an FPGA
 * vendor's), so this is several times what registrations at once could need.
 */
export const DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS = 64;

export const POD_RESOURCES_FRONT_BOUNDS: FrontBounds = { maxConnections: POD_RESOURCES_MAX_CONNECTIONS, prefaceTimeoutMs: PREFACE_TIMEOUT_MS };

export const DEVICE_PLUGIN_REGISTRATION_FRONT_BOUNDS: FrontBounds = { maxConnections: DEVICE_PLUGIN_REGISTRATION_MAX_CONNECTIONS, prefaceTimeoutMs: PREFACE_TIMEOUT_MS };
