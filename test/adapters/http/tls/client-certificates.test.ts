/**
 * Client certificate verification against clientCAFile (Go's x509 authenticator's rules), on
 * certificates made with openssl: chains, forged issuers, validity, extended key usage, bundles.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TLSSocket } from 'node:tls';
import { createClientCertificateVerifier, loadCertificateBundle, verifyClientChain } from '../../../../src/adapters/http/tls/client-certificates.js';

const run = promisify(execFile);
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
let dir: string;
const certs: Record<string, X509Certificate> = {};

async function makeCa(name: string, subject = `/CN=${name}`): Promise<void> {
  await run('openssl', ['req', '-x509', ...EC, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`), '-days', '2', '-subj', subject]);
}

/** A certificate for `subject` signed by `ca`, with the given X.509 extensions (openssl's syntax). */
async function makeSigned(name: string, ca: string, extensions: string[] = []): Promise<void> {
  await run('openssl', ['req', ...EC, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.csr`), '-subj', `/CN=${name}`]);
  await writeFile(join(dir, `${name}.ext`), extensions.join('\n') + '\n');
  await run('openssl', ['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', join(dir, `${ca}.crt`), '-CAkey', join(dir, `${ca}.key`),
    '-CAcreateserial', '-out', join(dir, `${name}.crt`), '-days', '1', '-extfile', join(dir, `${name}.ext`)]);
}

const CA_EXTENSIONS = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'klt-clientcert-'));
  await makeCa('root');
  await makeCa('other-root');
  await makeCa('forged-root', '/CN=root');
  await makeSigned('alice', 'root');
  await makeSigned('mid', 'root', CA_EXTENSIONS);
  await makeSigned('carol', 'mid');
  await makeSigned('not-a-ca', 'root', ['basicConstraints=critical,CA:FALSE']);
  await makeSigned('dave', 'not-a-ca');
  await makeSigned('eve', 'forged-root');
  await makeSigned('server-only', 'root', ['extendedKeyUsage=serverAuth']);
  await makeSigned('client-eku', 'root', ['extendedKeyUsage=clientAuth']);
  for (const name of ['root', 'other-root', 'forged-root', 'alice', 'mid', 'carol', 'not-a-ca', 'dave', 'eve', 'server-only', 'client-eku']) {
    certs[name] = new X509Certificate(await readFile(join(dir, `${name}.crt`)));
  }
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const now = () => Date.now();
const verify = (leaf: string, intermediates: string[] = [], roots = ['root'], at = now()) =>
  verifyClientChain(certs[leaf]!, intermediates.map((n) => certs[n]!), roots.map((n) => certs[n]!), at);

describe('verifyClientChain', () => {
  it('accepts a certificate signed by a root, and one through a presented intermediate CA', () => {
    expect(verify('alice')).toMatchObject({ ok: true });
    expect(verify('carol', ['mid'])).toMatchObject({ ok: true, chain: [certs.carol, certs.mid, certs.root] });
    expect(verify('alice', [], ['other-root', 'root'])).toMatchObject({ ok: true });
    expect(verify('root')).toMatchObject({ ok: true, chain: [certs.root] });
  });

  it.each([
    ['a forger\'s CA with the root\'s subject', 'eve', []],
    ['the forger\'s CA itself', 'forged-root', []],
    ['a missing intermediate', 'carol', []],
    ['an intermediate that is not a CA', 'dave', ['not-a-ca']],
    ['another CA\'s certificate', 'other-root', []],
  ])('refuses %s as signed by an unknown authority', (_what, leaf, intermediates) => {
    expect(verify(leaf, intermediates)).toEqual({ ok: false, reason: 'x509: certificate signed by unknown authority' });
  });

  it('refuses a certificate outside its validity, saying which bound it is past', () => {
    const leaf = certs.alice!;
    expect(verify('alice', [], ['root'], Date.parse(leaf.validTo) + 1000))
      .toMatchObject({ ok: false, reason: expect.stringMatching(/^x509: certificate has expired or is not yet valid: current time .* is after /) });
    expect(verify('alice', [], ['root'], Date.parse(leaf.validFrom) - 1000))
      .toMatchObject({ ok: false, reason: expect.stringMatching(/is before/) });
  });

  it('refuses an expired intermediate, as an unknown authority', () => {
    expect(verify('carol', ['mid'], ['root'], Date.parse(certs.mid!.validTo) + 1000)).toMatchObject({ ok: false });
  });

  it('takes extended key usage into account: client authentication or none', () => {
    expect(verify('server-only')).toEqual({ ok: false, reason: 'x509: certificate specifies an incompatible key usage' });
    expect(verify('client-eku')).toMatchObject({ ok: true });
  });
});

describe('loadCertificateBundle', () => {
  it('reads every certificate of a PEM bundle', async () => {
    const bundle = join(dir, 'bundle.crt');
    await writeFile(bundle, `# comment\n${await readFile(join(dir, 'other-root.crt'), 'utf8')}\n${await readFile(join(dir, 'root.crt'), 'utf8')}`);
    const read = await loadCertificateBundle(bundle, 'clientCAFile');
    expect(read.map((c) => c.subject)).toEqual(['CN=other-root', 'CN=root']);
  });

  it('refuses by name a file it cannot read, one without certificates, and a certificate that does not parse', async () => {
    await expect(loadCertificateBundle(join(dir, 'missing.crt'), 'clientCAFile'))
      .rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG', message: expect.stringContaining('cannot read clientCAFile') });
    await writeFile(join(dir, 'empty.crt'), 'not a certificate\n');
    await expect(loadCertificateBundle(join(dir, 'empty.crt'), 'clientCAFile'))
      .rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG', message: `clientCAFile ${join(dir, 'empty.crt')} holds no PEM certificate` });
    await writeFile(join(dir, 'garbage.crt'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    await expect(loadCertificateBundle(join(dir, 'garbage.crt'), 'clientCAFile'))
      .rejects.toMatchObject({ code: 'KLT_ERR_TLS_CONFIG', message: expect.stringContaining('certificate 1 does not parse') });
  });
});

describe('createClientCertificateVerifier', () => {
  /** A server-side socket that presented `names` (leaf first), linked as Node links them, counting full chain reads. */
  const socketPresenting = (names: string[], reads: { chain: number }) => {
    const objects = names.map((n) => ({ raw: certs[n]!.raw, fingerprint256: certs[n]!.fingerprint256, issuerCertificate: undefined as unknown }));
    objects.forEach((o, i) => (o.issuerCertificate = objects[i + 1]));
    return {
      getPeerCertificate: (detailed?: boolean) => {
        if (detailed) reads.chain++;
        return detailed ? objects[0] : { ...objects[0], issuerCertificate: undefined };
      },
    } as unknown as TLSSocket;
  };

  it('verifies a certificate once: seen again, it is taken without reading or checking its chain', () => {
    const reads = { chain: 0 };
    const verifier = createClientCertificateVerifier([certs.root!]);
    const first = socketPresenting(['carol', 'mid'], reads);
    const again = socketPresenting(['carol'], reads); // a resumed session: the leaf alone
    verifier.admit(first);
    verifier.admit(again);
    expect([verifier.verdictOf(first), verifier.verdictOf(again), reads.chain]).toEqual([{ ok: true }, { ok: true }, 1]);
  });

  it('forgets a verified certificate when its chain\'s validity ends', () => {
    let now = Date.now();
    const verifier = createClientCertificateVerifier([certs.root!], () => now);
    verifier.admit(socketPresenting(['alice'], { chain: 0 }));
    now = Date.parse(certs.alice!.validTo) + 1000;
    const later = socketPresenting(['alice'], { chain: 0 });
    verifier.admit(later);
    expect(verifier.verdictOf(later)).toMatchObject({ ok: false, reason: expect.stringContaining('expired') });
  });

  it('does not remember a refusal as a verdict for another certificate', () => {
    const verifier = createClientCertificateVerifier([certs.root!]);
    const eve = socketPresenting(['eve'], { chain: 0 });
    const alice = socketPresenting(['alice'], { chain: 0 });
    verifier.admit(eve);
    verifier.admit(alice);
    expect([verifier.verdictOf(eve)?.ok, verifier.verdictOf(alice)?.ok]).toEqual([false, true]);
  });
});
