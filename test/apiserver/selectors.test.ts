import { describe, expect, it } from 'vitest';
import { findResource } from './resources.js';
import { fieldValue, matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ApiError } from './status.js';

const pods = findResource('', 'v1', 'pods')!;

describe('label selectors', () => {
  it.each([
    ['app=web', true],
    ['app==web,tier!=db', true],
    ['app in (web, api),env', true],
    ['app notin (web)', false],
    ['!env', false],
    ['missing', false],
    ['!missing', true],
    ['', true],
  ])('%s matches {app: web, env: prod}: %s', (selector, want) => {
    expect(matchesLabels({ app: 'web', env: 'prod' }, parseLabelSelector(selector))).toBe(want);
  });
});

describe('field selectors', () => {
  const pod = { metadata: { name: 'a', namespace: 'default' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } };

  it.each([
    ['spec.nodeName=n1', true],
    ['spec.nodeName==n2', false],
    ['spec.nodeName!=n2,metadata.name=a', true],
    ['metadata.namespace=default,status.phase=Running', true],
    ['spec.hostNetwork=false', true],
  ])('%s on a pod bound to n1: %s', (selector, want) => {
    expect(matchesFields(pod, parseFieldSelector(selector, pods))).toBe(want);
  });

  it('matches unscheduled pods with spec.nodeName= (empty)', () => {
    expect(fieldValue({ spec: {} }, 'spec.nodeName')).toBe('');
    expect(matchesFields({ spec: {} }, parseFieldSelector('spec.nodeName=', pods))).toBe(true);
  });

  it('rejects a field the resource does not index with 400', () => {
    try {
      parseFieldSelector('spec.containers=x', pods);
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).status).toMatchObject({ code: 400, message: 'field label not supported: spec.containers' });
    }
  });
});
