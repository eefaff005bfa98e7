import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestTarget } from './request-target.ts';
import { routePath } from './router.ts';

const pathOf = (raw: string): string | undefined => parseRequestTarget(raw)?.path;

test('the path is decoded once and never cleaned: dot segments stay segments', () => {
  assert.equal(pathOf('/api/v1/namespaces/trav/configmaps/..'), '/api/v1/namespaces/trav/configmaps/..');
  assert.equal(pathOf('/api/v1/namespaces/trav/configmaps/%2E%2e'), '/api/v1/namespaces/trav/configmaps/..');
  assert.equal(pathOf('//double//slash'), '//double//slash');
  assert.equal(pathOf('/a%2Fb'), '/a/b');
  assert.equal(pathOf('/a%25zz'), '/a%zz');
  const route = routePath(pathOf('/api/v1/namespaces/trav/configmaps/%2e%2e') ?? '');
  assert.equal(route.type === 'resource' && `${route.namespace}/${route.resource}/${route.name}`, 'trav/configmaps/..');
});

test('the query is split off before decoding; absolute and asterisk forms', () => {
  assert.equal(parseRequestTarget('/api/v1/pods?labelSelector=a%3Db&watch=1')?.query.get('labelSelector'), 'a=b');
  assert.equal(pathOf('http://sandbox:6443/api/v1/namespaces/%2e%2e'), '/api/v1/namespaces/..');
  assert.equal(pathOf('https://[::1]:6443/version'), '/version');
  assert.equal(pathOf('http://sandbox'), '');
  assert.equal(pathOf('*'), '*');
});

test('what Go refuses: bad escapes, relative targets, malformed hosts', () => {
  for (const raw of ['/api/%zz', '/api/%2', '/api/%', 'api/v1', '%2e%2e', 'http://[/x', 'http://[::1]x/', 'http://host:port/', 'http://a b/', 'http://a%zz/']) {
    assert.equal(parseRequestTarget(raw), undefined, raw);
  }
});
