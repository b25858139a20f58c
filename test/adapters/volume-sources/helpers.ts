/** Pods and a log capture for the volume-sources tests. */
import { pino, type Logger } from 'pino';
import type { Pod, PodSpec } from '../../../src/domain/pod/types.js';

export function pod(uid: string, spec: Partial<PodSpec> & Record<string, unknown> = {}): Pod {
  return { metadata: { name: `pod-${uid}`, namespace: 'ns', uid }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } };
}

/** A pod mounting these ConfigMaps (configMap volumes) and these Secrets (secret volumes). */
export function mounting(uid: string, refs: { configMaps?: string[]; secrets?: string[] }): Pod {
  return pod(uid, {
    volumes: [
      ...(refs.configMaps ?? []).map((name) => ({ name: `cm-${name}`, configMap: { name } })),
      ...(refs.secrets ?? []).map((secretName) => ({ name: `s-${secretName}`, secret: { secretName } })),
    ],
  });
}

/** A logger at trace level whose lines the test can read. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) }), lines };
}
