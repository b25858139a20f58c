import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKubeconfig, readKubeconfig } from '../../../src/adapters/apiserver/kubeconfig-file.js';
import type { KubeletError } from '../../../src/domain/errors.js';

/** A kubeconfig of one context, with the given cluster and user bodies, as YAML (as kubeadm writes them). */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown> | null = {}): string {
  const yaml = (o: Record<string, unknown>) => (Object.keys(o).length === 0 ? '    {}' : Object.entries(o).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join('\n'));
  return [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- name: c', '  cluster:', yaml(cluster),
    ...(user === null ? [] : ['users:', '- name: u', '  user:', yaml(user)]),
    'contexts:', '- name: ctx', '  context:', '    cluster: c', ...(user === null ? [] : ['    user: u']),
    'current-context: ctx', '',
  ].join('\n');
}

const failure = (fn: () => unknown): KubeletError => {
  try {
    fn();
  } catch (err) {
    return err as KubeletError;
  }
  throw new Error('it did not fail');
};

describe('parseKubeconfig', () => {
  it('reads the current context\'s cluster and user, files relative to the kubeconfig\'s directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kts-kubeconfig-'));
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'CA PEM');
    writeFileSync(join(dir, 'pki', 'client.crt'), 'CERT PEM');
    writeFileSync(join(dir, 'client.key'), 'KEY PEM');
    const path = join(dir, 'kubelet.conf');
    writeFileSync(path, kubeconfig(
      { server: 'https://10.0.0.1:6443', 'certificate-authority': 'pki/ca.crt', 'tls-server-name': 'kubernetes' },
      { 'client-certificate': 'pki/client.crt', 'client-key': join(dir, 'client.key') },
    ));
    const config = readKubeconfig(path);
    expect(config.cluster).toEqual({ server: 'https://10.0.0.1:6443', ca: Buffer.from('CA PEM'), insecureSkipTlsVerify: false, tlsServerName: 'kubernetes' });
    expect(config.user).toEqual({ cert: Buffer.from('CERT PEM'), key: Buffer.from('KEY PEM'), external: false });
  });

  it('takes inline -data over a file, and a token, basic auth or a token file', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const inline = parseKubeconfig(kubeconfig({ server: 'https://a', 'certificate-authority-data': b64('CA'), 'certificate-authority': '/nowhere' }, { token: 't0k', username: 'me', password: 'pw' }), '/etc/k/kc');
    expect(inline.cluster.ca).toEqual(Buffer.from('CA'));
    expect(inline.user).toMatchObject({ token: 't0k', basic: { username: 'me', password: 'pw' } });
    expect(parseKubeconfig(kubeconfig({ server: 'https://a' }, { tokenFile: 'token' }), '/etc/k/kc').user.tokenFile).toBe('/etc/k/token');
  });

  it('marks an exec plugin or auth-provider user as external (its credentials come from client-node)', () => {
    expect(parseKubeconfig(kubeconfig({ server: 'https://a' }, { exec: { command: 'get-token' } }), 'kc').user.external).toBe(true);
    expect(parseKubeconfig(kubeconfig({ server: 'https://a' }, { 'auth-provider': { name: 'oidc' } }), 'kc').user.external).toBe(true);
    expect(parseKubeconfig(kubeconfig({ server: 'http://a', 'insecure-skip-tls-verify': true }, null), 'kc')).toMatchObject({ cluster: { insecureSkipTlsVerify: true }, user: { external: false } });
  });

  it.each([
    ['no current-context', 'apiVersion: v1\nkind: Config\n', /no current-context/],
    ['a context that does not exist', 'current-context: x\ncontexts: []\n', /contexts: no context named "x"/],
    ['a cluster without a server', kubeconfig({}), /clusters\["c"\]\.cluster\.server: missing/],
    ['a server that is no URL, not quoted', kubeconfig({ server: 'https://u:s3cret@[bad' }), /server: not a URL \(21 characters, not shown\)$/],
    ['a server that is not HTTP', kubeconfig({ server: 'ftp://a' }), /ftp: is neither https: nor http:/],
    ['a certificate without its key', kubeconfig({ server: 'https://a' }, { 'client-certificate-data': 'Q0VSVA==' }), /client-certificate and client-key must be given together/],
    ['a CA file that is missing', kubeconfig({ server: 'https://a', 'certificate-authority': '/nonexistent/ca.crt' }), /certificate-authority: cannot read \/nonexistent\/ca.crt: ENOENT/],
    ['a proxy', kubeconfig({ server: 'https://a', 'proxy-url': 'http://proxy:3128' }), /cluster\.proxy-url: proxies are not supported/],
    ['impersonation', kubeconfig({ server: 'https://a' }, { as: 'admin' }), /user\.as: impersonation is not supported/],
    ['a server that is a number', kubeconfig({ server: 6443 }), /server: not a string/],
  ])('refuses %s with KLT_ERR_API_CONFIG naming the field', (_what, text, message) => {
    const err = failure(() => parseKubeconfig(text, '/etc/k/kc'));
    expect(err.code).toBe('KLT_ERR_API_CONFIG');
    expect(err.message).toMatch(/^invalid kubeconfig \/etc\/k\/kc: /);
    expect(err.message).toMatch(message);
  });

  /** A kubeconfig whose user's token line is indented one space less than the key after it. */
  const TOKEN = 's3cr3t-T0KEN-value';
  const KEY_DATA = 'UExBSU5LRVlEQVRB';
  const badIndent = kubeconfig({ server: 'https://a' }, { token: TOKEN, 'client-key-data': KEY_DATA }).replace(`    token: "${TOKEN}"`, `   token: ${TOKEN}`);

  it.each([
    ['a bad indent on the token line', badIndent, 10, 11],
    ['JSON cut short', '{"users": [{"name": "u", "user": {"token": "s3cr3t-T0KEN-value"', 1, 64],
    ['a bad escape in a quoted token', `users:\n- name: u\n  user:\n    token: "s3cr3t\\qT0KEN-value"\n`, 4, 19],
  ])('refuses %s naming file:line:col and what is wrong, never the text', (_what, text, line, col) => {
    const err = failure(() => parseKubeconfig(text, '/etc/k/kc'));
    expect(err.code).toBe('KLT_ERR_API_CONFIG');
    expect(err.message).toMatch(new RegExp(`^invalid kubeconfig, not YAML: /etc/k/kc:${line}:${col}: [a-z]`));
    for (const secret of [TOKEN, KEY_DATA, 'T0KEN', 's3cr3t', 'value', 'token:', '\\q']) expect(err.message).not.toContain(secret);
  });

  it('refuses more than one document', () => {
    expect(failure(() => parseKubeconfig('current-context: a\n---\ncurrent-context: b\n', '/etc/k/kc')).message).toBe('invalid kubeconfig /etc/k/kc: 2 YAML documents where one was expected');
  });

  it('refuses a kubeconfig it cannot read, naming the file', () => {
    const err = failure(() => readKubeconfig('/nonexistent/kubeconfig'));
    expect(err.code).toBe('KLT_ERR_API_CONFIG');
    expect(err.message).toContain('/nonexistent/kubeconfig: cannot read it: ENOENT');
  });
});
