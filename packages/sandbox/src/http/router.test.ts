import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routePath } from './router.ts';

test('resource paths split as the real RequestInfoFactory splits them', () => {
  assert.deepEqual(routePath('/api/v1/namespaces/ns/pods/p/status'), {
    type: 'resource', group: '', version: 'v1', namespace: 'ns', resource: 'pods', name: 'p', subresource: 'status', watchPrefix: false, extra: false,
  });
  assert.deepEqual(routePath('/apis/apps/v1/watch/namespaces/ns/deployments'), {
    type: 'resource', group: 'apps', version: 'v1', namespace: 'ns', resource: 'deployments', name: undefined, subresource: undefined, watchPrefix: true, extra: false,
  });
  const ns = routePath('/api/v1/namespaces/term/finalize');
  assert.equal(ns.type === 'resource' && `${ns.resource}/${ns.name}/${ns.subresource}`, 'namespaces/term/finalize');
  const nsGet = routePath('/api/v1/namespaces/term');
  assert.equal(nsGet.type === 'resource' && `${nsGet.resource}/${nsGet.name}`, 'namespaces/term');
  const cluster = routePath('/api/v1/nodes/n1');
  assert.equal(cluster.type === 'resource' && `${cluster.namespace}/${cluster.resource}/${cluster.name}`, 'undefined/nodes/n1');
});

test('discovery paths', () => {
  assert.deepEqual(routePath('/api'), { type: 'legacy-root' });
  assert.deepEqual(routePath('/apis'), { type: 'groups-root' });
  assert.deepEqual(routePath('/apis/apps'), { type: 'group', group: 'apps' });
  assert.deepEqual(routePath('/apis/apps/v1'), { type: 'group-version', group: 'apps', version: 'v1' });
  assert.deepEqual(routePath('/api/v1'), { type: 'group-version', group: '', version: 'v1' });
  assert.deepEqual(routePath('/version'), { type: 'other', path: '/version' });
});
