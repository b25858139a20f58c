/**
 * What our HTTP/2 client takes from a peer, each bound as one of the maintained libraries holds it
 * (nghttp2 beneath node:http2, Go's x/net/http2 beneath client-go): past these a misbehaving
 * runtime or API-side peer gets its stream reset or its connection closed, instead of our memory,
 * CPU or event loop.
 */

/**
 * A header list's size as RFC 9113 §6.5.2 counts it (name + value + 32 per field): node:http2's
 * default maxHeaderListSize over nghttp2 (Go's client allows 10 MiB; our answers carry a few short
 * fields). Announced in our SETTINGS; a list over it resets its stream, as Go's transport does.
 */
export const MAX_HEADER_LIST_BYTES = 65_535;

/** Fields in one header list: node:http2's default maxHeaderListPairs. */
export const MAX_HEADER_LIST_FIELDS = 128;

/** CONTINUATION frames after one HEADERS, empty ones too: nghttp2's default max_continuations. */
export const MAX_CONTINUATION_FRAMES = 8;

/**
 * Frames we answer with (SETTINGS and PING ACKs, WINDOW_UPDATE, RST_STREAM) written while the
 * socket's buffer is full, i.e. the peer does not read: nghttp2's NGHTTP2_DEFAULT_MAX_OBQ_FLOOD_ITEM
 * (Go's server allows 10,000, its maxQueuedControlFrames).
 */
export const MAX_QUEUED_CONTROL_FRAMES = 1000;

/** Entries in one SETTINGS frame: nghttp2's NGHTTP2_DEFAULT_MAX_SETTINGS. */
export const MAX_SETTINGS_PER_FRAME = 32;

/**
 * Invalid or useless frames (empty DATA that ends nothing, frames for streams that are not open,
 * PRIORITY, unasked PING answers) as a token bucket: nghttp2's glitch rate limit, a burst of 1000
 * refilled at 33 a second.
 */
export const GLITCH_BURST = 1000;
export const GLITCH_RATE_PER_SECOND = 33;

/**
 * What a peer may send on one stream before its reader has consumed it: Go's transport's
 * transportDefaultStreamFlow (4 MiB), so a paused watch stops its server after this much.
 */
export const STREAM_RECEIVE_WINDOW = 4 * 1024 * 1024;

/** The connection's receive window: Go's transport's transportDefaultConnFlow (1 GiB). */
export const CONNECTION_RECEIVE_WINDOW = 1024 * 1024 * 1024;
