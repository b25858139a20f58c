/**
 * The channel.k8s.io WebSocket subprotocols (Go's wsstream): every message starts with the number of
 * the channel it belongs to. Binary variants send a binary message `[channel byte][data]`; base64
 * variants send a text message `[ASCII digit of the channel][data in base64]`. v5 adds one control
 * message, `[255][channel]`: the sender will write no more on that channel (a half-close of stdin).
 */

export interface ChannelProtocol {
  name: string;
  binary: boolean;
  /** The error channel carries a v4 Status (JSON) rather than a bare message. */
  statusAsJson: boolean;
  /** The peer may half-close a channel with `[255][channel]`. */
  closeSignal: boolean;
}

/** The v5 control channel: its one byte of data names the channel the peer closed. */
export const CLOSE_SIGNAL_CHANNEL = 255;

function protocol(name: string, binary: boolean, statusAsJson: boolean, closeSignal = false): ChannelProtocol {
  return { name, binary, statusAsJson, closeSignal };
}

/** exec and attach, best first. "" stands for a client that named no subprotocol (Go answers it as channel.k8s.io). */
export const REMOTE_COMMAND_WS_PROTOCOLS: readonly ChannelProtocol[] = [
  protocol('v5.channel.k8s.io', true, true, true),
  protocol('v4.channel.k8s.io', true, true),
  protocol('v4.base64.channel.k8s.io', false, true),
  protocol('channel.k8s.io', true, false),
  protocol('base64.channel.k8s.io', false, false),
  protocol('', true, false),
];

/** Port forwarding has no status; only the framing differs. */
export const PORT_FORWARD_WS_PROTOCOLS: readonly ChannelProtocol[] = [
  protocol('v4.channel.k8s.io', true, false),
  protocol('v4.base64.channel.k8s.io', false, false),
  protocol('', true, false),
];

/**
 * The client's first offered protocol we speak, as Go's handshake picks it (in the client's order);
 * undefined when it offered only protocols we do not speak.
 */
export function pickProtocol(offered: readonly string[], supported: readonly ChannelProtocol[]): ChannelProtocol | undefined {
  const wanted = offered.length === 0 ? [''] : offered;
  for (const name of wanted) {
    const match = supported.find((p) => p.name === name);
    if (match) return match;
  }
  return undefined;
}

export function encodeFrame(protocol: ChannelProtocol, channel: number, data: Buffer): Buffer | string {
  if (protocol.binary) {
    const frame = Buffer.allocUnsafe(data.length + 1);
    frame[0] = channel;
    data.copy(frame, 1);
    return frame;
  }
  return String.fromCharCode(48 + channel) + data.toString('base64');
}

export type DecodedFrame =
  | { kind: 'data'; channel: number; data: Buffer }
  | { kind: 'close'; channel: number }
  | { kind: 'invalid'; reason: string };

/** An empty message carries nothing and is skipped (undefined), as Go's reader does. */
export function decodeFrame(protocol: ChannelProtocol, message: Buffer): DecodedFrame | undefined {
  if (message.length === 0) return undefined;
  const first = message[0]!;
  if (protocol.closeSignal && first === CLOSE_SIGNAL_CHANNEL) {
    if (message.length < 2) return { kind: 'invalid', reason: 'close signal without a channel' };
    return { kind: 'close', channel: message[1]! };
  }
  if (protocol.binary) return { kind: 'data', channel: first, data: message.subarray(1) };
  const text = message.subarray(1).toString('latin1');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    return { kind: 'invalid', reason: `channel ${first - 48}: payload is not base64` };
  }
  return { kind: 'data', channel: first - 48, data: Buffer.from(text, 'base64') };
}
