import { describe, expect, it } from 'vitest';
import { createRouter, pathSegments, type RouteHandler } from '../../../../src/adapters/http/kubelet-server/router.js';

const named = (name: string): RouteHandler => Object.assign(() => undefined, { route: name });
const nameOf = (found: ReturnType<ReturnType<typeof createRouter>['find']>) =>
  typeof found === 'object' ? [(found.handler as unknown as { route: string }).route, found.params] : found;

function router() {
  const r = createRouter();
  r.add(['GET', 'POST'], '/exec/:namespace/:pod/:container', named('exec'));
  r.get('/pods', named('pods'));
  r.get('/healthz/:check', named('check'));
  r.get('/healthz/ping', named('ping'));
  r.add(['PUT'], '/run/*', named('run-other'));
  r.add('ALL', '/logs/*', named('logs'));
  return r;
}

const find = (method: string, path: string) => nameOf(router().find(method, pathSegments(path)!));

describe('the kubelet server router', () => {
  it('matches literal paths, GET routes answering HEAD too', () => {
    expect(find('GET', '/pods')).toEqual(['pods', {}]);
    expect(find('HEAD', '/pods')).toEqual(['pods', {}]);
    expect(find('GET', '/pods/')).toBeUndefined();
    expect(find('GET', '//pods')).toBeUndefined();
  });

  it('takes :param segments, decoded, and refuses an empty one', () => {
    expect(find('POST', '/exec/ns/web%2Dx/app')).toEqual(['exec', { namespace: 'ns', pod: 'web-x', container: 'app' }]);
    expect(find('GET', '/exec/ns//app')).toBeUndefined();
    expect(find('GET', '/exec/ns/web')).toBeUndefined();
  });

  it('prefers a literal route to a :param one added before it', () => {
    expect(find('GET', '/healthz/ping')).toEqual(['ping', {}]);
    expect(find('GET', '/healthz/log')).toEqual(['check', { check: 'log' }]);
  });

  it('matches a trailing * against one segment or more', () => {
    expect(find('PUT', '/run/')).toEqual(['run-other', {}]);
    expect(find('PUT', '/run/a/b/c')).toEqual(['run-other', {}]);
    expect(find('PUT', '/run')).toBeUndefined();
    expect(find('DELETE', '/logs/x')).toEqual(['logs', {}]);
  });

  it('tells a path served for other methods only from one not served at all', () => {
    expect(find('POST', '/pods')).toBe('wrongMethod');
    expect(find('DELETE', '/exec/ns/web/app')).toBe('wrongMethod');
    expect(find('POST', '/nope')).toBeUndefined();
  });

  it('finds no segments in a path that does not decode', () => {
    expect(pathSegments('/pods%zz')).toBeUndefined();
    expect(pathSegments('/a%2Fb/c')).toEqual(['', 'a/b', 'c']);
  });
});
