/**
 * The HttpGet port over node:http(s), as Go's lifecycle hooks send a GET: its own User-Agent, the
 * body discarded, https without certificate checks (Go's hooks and probes skip them too).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { HttpGet } from '../../ports/http-get.js';

export const nodeHttpGet: HttpGet = (url, headers) =>
  new Promise((resolve, reject) => {
    const parsed = new URL(url);
    const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(parsed, { method: 'GET', headers: { 'User-Agent': 'kube-lifecycle/kubelet-ts', ...headers }, rejectUnauthorized: false }, (res) => {
      res.resume(); // discard the body
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
