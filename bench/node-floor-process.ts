/**
 * What any kubelet on Node holds, with none of a kubelet's logic (`npm run bench -- nodefloor` starts
 * it): an HTTP/2 session over TLS to the API server with a client certificate, watching its node and
 * its pods and reading its Node every 10 s; an HTTP/2 session to containerd over its unix socket,
 * listing sandboxes and containers every second as a relist does; an HTTPS server that asks for client
 * certificates (the kubelet server) and a plain healthz server. Node's own C++ (nghttp2, OpenSSL)
 * does all of it, with a few dozen lines of JavaScript: its RSS is the least a Node kubelet can have.
 *
 * Arguments: API server URL, CA, client certificate, client key, containerd socket, node name, port,
 * healthz port. Prints `ready` once every connection answered.
 */
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as connectSocket } from 'node:net';

const [server, caFile, certFile, keyFile, criSocket, node, port, healthzPort] = process.argv.slice(2);
if (!healthzPort) throw new Error('usage: node-floor-process SERVER CA CERT KEY CRI_SOCKET NODE PORT HEALTHZ_PORT');
const tls = { ca: readFileSync(caFile!), cert: readFileSync(certFile!), key: readFileSync(keyFile!) };

/** One request's whole answer, read and dropped; resolves with its :status. */
function request(session: ClientHttp2Session, headers: Record<string, string>, body?: Buffer): Promise<number> {
  return new Promise((done, fail) => {
    const stream = session.request(headers);
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', () => {});
    stream.on('end', () => done(status));
    stream.on('error', fail);
    stream.end(body);
  });
}

const api = connect(server!, tls);
function watch(path: string): void {
  // A watch the server ends (its timeout) is opened again, as a reflector does.
  request(api, { ':path': path }).finally(() => setTimeout(() => watch(path), 1000)).catch(() => {});
}
watch(`/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3D${node}`);
watch(`/api/v1/nodes?watch=true&fieldSelector=metadata.name%3D${node}`);
const getNode = () => request(api, { ':path': `/api/v1/nodes/${node}` });
setInterval(() => void getNode().catch(() => {}), 10_000);

const cri = connect('http://localhost', { createConnection: () => connectSocket(criSocket!) });
// A gRPC call with an empty message: every field at its default, which both lists take as "all".
const EMPTY_MESSAGE = Buffer.alloc(5);
const grpc = (method: string) =>
  request(cri, { ':method': 'POST', ':path': `/runtime.v1.RuntimeService/${method}`, 'content-type': 'application/grpc', te: 'trailers' }, EMPTY_MESSAGE);
setInterval(() => void Promise.all([grpc('ListPodSandbox'), grpc('ListContainers')]).catch(() => {}), 1000);

const kubeletServer = createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, (_req, res) => res.end('ok'));
const healthzServer = createHttpServer((_req, res) => res.end('ok'));
await Promise.all([
  new Promise<void>((done) => kubeletServer.listen(Number(port), '127.0.0.1', done)),
  new Promise<void>((done) => healthzServer.listen(Number(healthzPort), '127.0.0.1', done)),
  getNode(),
  grpc('Version'),
]);
process.stdout.write('ready\n');
process.on('SIGTERM', () => process.exit(0));
