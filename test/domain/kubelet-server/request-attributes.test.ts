import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS_USER, forbiddenMessage, isSubpath, nodeRequestAttributes, subresourcesForPath, verbForMethod,
} from '../../../src/domain/kubelet-server/request-attributes.js';

describe('nodeRequestAttributes', () => {
  it.each([
    ['/pods', ['pods', 'proxy']],
    ['/pods/', ['pods', 'proxy']],
    ['/podsx', ['proxy']],
    ['/runningpods/', ['pods', 'proxy']],
    ['/runningpods', ['pods', 'proxy']],
    ['/healthz', ['healthz', 'proxy']],
    ['/healthz/syncloop', ['healthz', 'proxy']],
    ['/configz', ['configz', 'proxy']],
    ['/statusz', ['statusz', 'proxy']],
    ['/stats', ['stats']],
    ['/stats/summary', ['stats']],
    ['/metrics', ['metrics']],
    ['/metrics/cadvisor', ['metrics']],
    ['/metrics/resource', ['metrics']],
    ['/metricsfoo', ['proxy']],
    ['/logs/', ['log']],
    ['/logs/syslog', ['log']],
    ['/checkpoint/ns/pod/c', ['checkpoint']],
    ['/containerLogs/ns/pod/c', ['proxy']],
    ['/exec/ns/pod/c', ['proxy']],
    ['/spec', ['proxy']],
    ['/', ['proxy']],
  ])('maps %s to nodes/%j with fine-grained authz', (path, subs) => {
    expect(subresourcesForPath(path, true)).toEqual(subs);
  });

  it.each([
    ['/pods', ['proxy']],
    ['/configz', ['proxy']],
    ['/metrics', ['metrics']],
    ['/stats/summary', ['stats']],
  ])('maps %s to nodes/%j without fine-grained authz', (path, subs) => {
    expect(subresourcesForPath(path, false)).toEqual(subs);
  });

  it.each([
    ['GET', 'get'], ['POST', 'create'], ['PUT', 'update'], ['PATCH', 'patch'], ['DELETE', 'delete'], ['HEAD', ''], ['OPTIONS', ''],
  ])('gives %s the verb %j', (method, verb) => {
    expect(verbForMethod(method)).toBe(verb);
  });

  it('builds one attribute set per subresource, naming the node and the path', () => {
    const attrs = nodeRequestAttributes(ANONYMOUS_USER, 'GET', '/pods', 'node-a');
    expect(attrs).toHaveLength(2);
    expect(attrs[0]).toMatchObject({ verb: 'get', resource: 'nodes', subresource: 'pods', name: 'node-a', apiVersion: 'v1', path: '/pods', resourceRequest: true });
    expect(attrs[1]!.subresource).toBe('proxy');
  });

  it('words the 403 body as the Go kubelet does', () => {
    const attrs = nodeRequestAttributes(ANONYMOUS_USER, 'GET', '/pods', 'n');
    expect(forbiddenMessage(attrs)).toBe('Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[pods proxy])');
    expect(forbiddenMessage(nodeRequestAttributes({ name: 'bob', groups: [] }, 'POST', '/exec/a/b/c', 'n')))
      .toBe('Forbidden (user=bob, verb=create, resource=nodes, subresource(s)=[proxy])');
  });

  it('treats a path as under itself and its children only', () => {
    expect(isSubpath('/stats', '/stats/')).toBe(true);
    expect(isSubpath('/statsx', '/stats/')).toBe(false);
    expect(isSubpath('/stats/a/b', '/stats/')).toBe(true);
  });
});
