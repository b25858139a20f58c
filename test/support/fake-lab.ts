/**
 * A stand-in for the real control plane's API server in bench unit tests: HTTPS on 127.0.0.1 with a
 * self-signed pair, and a lab directory whose CA and admin client pair are that pair, so labApi and
 * labWatch talk to it as to the lab. Each fake is closed by the returned `close`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSignedPair } from '../../src/adapters/http/tls/self-signed.js';

export interface FakeLab { dir: string; ca: string; server: string; close(): void }

export async function fakeLab(answer: (url: string, res: ServerResponse, req: IncomingMessage) => void): Promise<FakeLab> {
  const { certPem, keyPem } = await generateSelfSignedPair('localhost', ['127.0.0.1'], Math.floor(Date.now() / 1000));
  const dir = mkdtempSync(join(tmpdir(), 'kts-fake-lab-'));
  mkdirSync(join(dir, 'pki'));
  for (const [file, text] of [['ca.crt', certPem], ['admin.crt', certPem], ['admin.key', keyPem]] as const) writeFileSync(join(dir, 'pki', file), text);
  const server: Server = createServer({ cert: certPem, key: keyPem }, (req, res) => answer(req.url ?? '', res, req));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    dir, ca: join(dir, 'pki', 'ca.crt'), server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
