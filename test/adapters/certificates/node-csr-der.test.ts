/**
 * Every certificate request the kubelet sends (the bootstrap's client CSR, a rotation's client CSR,
 * the serving CSR; ECDSA and RSA keys), read back by a strict DER reader the way Go's
 * x509.ParseCertificateRequest, and so every real API server, reads it. The requests are the very
 * bytes askForNodeCertificate POSTs, taken from a recording RestClient.
 */
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { askForNodeCertificate } from '../../../src/adapters/certificates/node-certificate.js';
import type { RestClient } from '../../../src/adapters/apiserver/rest-client.js';
import { createCertificate, generateKeyPair, pemToDer, type KeyKind } from '../../../src/adapters/pki/x509.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { DerError, parseStrictDer, readStrictCertificationRequest } from '../../support/strict-der.js';

const EXTENSION_REQUEST_OID = Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e]); // 1.2.840.113549.1.9.14

/** A RestClient that records the CSR it is asked to create and answers it as issued at once. */
async function recordingRest(): Promise<{ rest: RestClient; posted: () => string }> {
  const pair = await generateKeyPair('ecdsa-p256');
  const issued = await createCertificate(
    { subject: { commonName: 'issued' }, notBefore: new Date(), notAfter: new Date(Date.now() + 3600_000), publicKey: pair.keys.publicKey, keyUsages: ['digitalSignature'] },
    { selfKey: pair.keys.privateKey },
  );
  let request = '';
  const rest = {
    request: async (method: string, _path: string, opts: { body?: { spec?: { request?: string } } } = {}) => {
      if (method === 'POST') {
        request = Buffer.from(opts.body?.spec?.request ?? '', 'base64').toString('utf8');
        return { metadata: { name: 'csr-1', uid: 'u1' } };
      }
      return { metadata: { name: 'csr-1', uid: 'u1' }, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(issued).toString('base64') } };
    },
  } as unknown as RestClient; // only request() is reached: the CSR is issued on the first GET
  return { rest, posted: () => request };
}

type Kind = 'bootstrap client' | 'rotated client' | 'serving';

async function requestPemFor(kind: Kind, keyKind: KeyKind): Promise<string> {
  const { rest, posted } = await recordingRest();
  const key = await generateKeyPair(keyKind);
  await askForNodeCertificate(rest, key.privateKeyPem, 'node-a', {
    ...(kind === 'serving' ? { serving: { dnsNames: ['node-a'], ipAddresses: ['10.0.0.7', 'fd00::1'] } } : {}),
    named: kind === 'bootstrap client',
    clock: systemClock,
    signal: new AbortController().signal,
    timeoutMs: 5000,
    onCreated: () => {},
    onState: () => {},
  });
  return posted();
}

describe('the certificate requests the kubelet sends are DER as Go reads it', () => {
  for (const kind of ['bootstrap client', 'rotated client', 'serving'] as const) {
    for (const keyKind of ['ecdsa-p256', 'rsa-2048'] as const) {
      it(`${kind} CSR, ${keyKind} key: strict DER, with the mandatory attributes field, signed by its key`, async () => {
        const pem = await requestPemFor(kind, keyKind);
        const der = new Uint8Array(pemToDer(pem, 'CERTIFICATE REQUEST'));
        const csr = readStrictCertificationRequest(der);
        if (kind === 'serving') {
          // One attribute: the extensionRequest carrying the subjectAltName extension.
          expect(csr.attributes).toHaveLength(1);
          expect(Buffer.from(csr.attributes[0]!.children[0]!.content).equals(EXTENSION_REQUEST_OID)).toBe(true);
        } else {
          expect(csr.attributes).toEqual([]);
        }
        // An ECDSA signature is itself DER (SEQUENCE of two INTEGERs), read as strictly.
        if (keyKind === 'ecdsa-p256') expect(parseStrictDer(csr.signature).children).toHaveLength(2);
        const publicKey = createPublicKey({ key: Buffer.from(csr.info.children[2]!.encoding), format: 'der', type: 'spki' });
        expect(verify('sha256', csr.info.encoding, publicKey, csr.signature)).toBe(true);
      });
    }
  }
});

describe('the strict DER reader', () => {
  const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

  it('reads what DER allows', () => {
    const node = parseStrictDer(hex('30 06 02 01 05 01 01 ff'));
    expect(node.children.map((c) => c.tagNumber)).toEqual([2, 1]);
  });

  it.each([
    ['the indefinite length', '30 80 02 01 05 00 00'],
    ['a long-form length below 128', '30 81 03 02 01 05'],
    ['a non-minimal INTEGER', '02 02 00 05'],
    ['a BOOLEAN that is not 0x00 or 0xff', '01 01 01'],
    ['bytes after the element', '02 01 05 00'],
    ['an element past its parent', '30 03 02 02 05'],
    ['an unsorted SET', '31 06 02 01 07 02 01 05'],
    ['set unused bits in a BIT STRING', '03 02 01 01'],
    ['a NULL with content', '05 01 00'],
    ['a constructed INTEGER', '22 03 02 01 05'],
  ])('refuses %s', (_why, bytes) => {
    expect(() => parseStrictDer(hex(bytes))).toThrow(DerError);
  });

  it('refuses a CertificationRequestInfo without attributes, as Go does ("sequence truncated")', () => {
    // version 0, an empty Name, an empty SPKI stand-in; no [0] attributes.
    const info = '30 07 02 01 00 30 00 30 00';
    const request = hex(`30 0f ${info} 30 00 03 02 00 00`);
    expect(() => readStrictCertificationRequest(request)).toThrow(/certificationRequestInfo\.attributes: missing/);
  });
});
