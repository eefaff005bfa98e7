// A failed list or watch in words: the missing permission (verb, resource, scope), refused credentials, an
// unreachable API server, a resource not served.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, ConnectionError } from '../kube/client.ts';
import { PODS, ROLLOUTLIFECYCLES } from '../kube/resources.ts';
import { describeProblem } from './problems.ts';

const forbidden = (message: string): ApiError => new ApiError(403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message }, 'GET /api/v1/pods');

test('a 403 names the verb, the resource with its group, the scope, and how to check it', () => {
  const said = 'pods is forbidden: User "jane" cannot watch resource "pods" in API group "" in the namespace "demo"';
  assert.deepEqual(describeProblem(PODS, 'demo', 'watch', forbidden(said)), {
    resource: 'pods',
    verb: 'watch',
    kind: 'forbidden',
    message: `missing permission: watch pods in namespace demo (the API server said: ${said}; check with: kubectl auth can-i watch pods -n demo)`,
  });
  const all = describeProblem(ROLLOUTLIFECYCLES, undefined, 'list', forbidden('no'));
  assert.equal(all.resource, 'rolloutlifecycles.apps.kusionstack.io');
  assert.match(all.message, /^missing permission: list rolloutlifecycles\.apps\.kusionstack\.io in all namespaces .*kubectl auth can-i list rolloutlifecycles\.apps\.kusionstack\.io -A\)$/);
});

test('refused credentials, an unreachable server, a CRD not installed, anything else', () => {
  const unauthorized = new ApiError(401, { message: 'Unauthorized' }, 'GET /api/v1/pods');
  assert.equal(describeProblem(PODS, 'demo', 'list', unauthorized).kind, 'unauthorized');
  const refused = new ConnectionError('https://10.1.2.3:6443', 'connection refused');
  assert.deepEqual(describeProblem(PODS, 'demo', 'list', refused), {
    resource: 'pods',
    verb: 'list',
    kind: 'unreachable',
    message: 'cannot reach the API server https://10.1.2.3:6443: connection refused',
  });
  const notServed = describeProblem(ROLLOUTLIFECYCLES, 'demo', 'list', new ApiError(404, { message: 'the server could not find the requested resource' }, 'GET'));
  assert.equal(notServed.kind, 'not-served');
  assert.match(notServed.message, /does not serve rolloutlifecycles\.apps\.kusionstack\.io\/v1alpha1/);
  const overloaded = describeProblem(PODS, 'demo', 'watch', new ApiError(500, { message: 'etcd timeout' }, 'GET'));
  assert.deepEqual([overloaded.kind, overloaded.message], ['failed', 'watch pods in namespace demo failed (HTTP 500): etcd timeout']);
  assert.equal(describeProblem(PODS, 'demo', 'watch', new Error('watch error 500: boom')).message, 'watch pods failed: watch error 500: boom');
});
