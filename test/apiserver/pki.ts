/**
 * A throw-away PKI for the test API server's TLS mode, made with openssl in a temp dir (Node 20
 * cannot write X.509 certificates): a CA, a serving certificate for 127.0.0.1 signed by it, and
 * client certificates on demand whose subject says who the client is (CN = user, O = groups),
 * as the API server's x509 authenticator reads them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export interface ClientCertificate {
  certFile: string;
  keyFile: string;
}

export interface TestPki {
  dir: string;
  caFile: string;
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** A client certificate signed by the CA for `user` in `groups`. */
  issueClientCertificate(user: string, groups?: readonly string[]): Promise<ClientCertificate>;
}

function subject(user: string, groups: readonly string[]): string {
  const safe = (s: string) => {
    if (!/^[A-Za-z0-9:._@-]+$/.test(s)) throw new Error(`unsupported name in a test certificate: ${s}`);
    return s;
  };
  return `${groups.map((g) => `/O=${safe(g)}`).join('')}/CN=${safe(user)}`;
}

export async function createTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-apiserver-pki-'));
  const caFile = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  await run('openssl', ['req', '-x509', ...EC, '-keyout', caKey, '-out', caFile, '-days', '1', '-subj', '/CN=kubelet-ts-test-ca']);
  let serial = 0;
  const sign = async (name: string, subj: string, ext: string): Promise<ClientCertificate> => {
    const keyFile = join(dir, `${name}.key`);
    const certFile = join(dir, `${name}.crt`);
    const extFile = join(dir, `${name}.ext`);
    await run('openssl', ['req', ...EC, '-keyout', keyFile, '-out', join(dir, `${name}.csr`), '-subj', subj]);
    writeFileSync(extFile, ext);
    serial++;
    await run('openssl', ['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', caFile, '-CAkey', caKey,
      '-set_serial', String(1000 + serial), '-out', certFile, '-days', '1', '-extfile', extFile]);
    return { certFile, keyFile };
  };
  const server = await sign('apiserver', '/CN=kube-apiserver',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n');
  let clients = 0;
  return {
    dir,
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    serverCertPem: readFileSync(server.certFile, 'utf8'),
    serverKeyPem: readFileSync(server.keyFile, 'utf8'),
    issueClientCertificate: (user, groups = []) =>
      sign(`client-${++clients}`, subject(user, groups), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n'),
  };
}
