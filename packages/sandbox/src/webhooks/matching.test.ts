import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import type { AdmissionAttributes } from '../apiserver/admission.ts';
import type { KubeObject } from '../meta/object.ts';
import { webhooksOf } from './configuration.ts';
import { matchWebhook, ruleMatches, type MatchContext } from './matching.ts';

const attributes = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  subresource: undefined,
  namespace: 'ns',
  name: 'p',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'a' } } },
  oldObject: undefined,
  dryRun: false,
  options: {},
  userInfo: { username: 'u', groups: [] },
  ...over,
});

const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({
  operations: ['*'],
  apiGroups: ['*'],
  apiVersions: ['*'],
  resources,
  scope: '*',
  ...extra,
});

test('resources and subresources: exact, `*`, `*/status`, `pods/*`', () => {
  const status = attributes({ operation: 'UPDATE', subresource: 'status' });
  assert.equal(ruleMatches(rule(['pods']), attributes()), true);
  assert.equal(ruleMatches(rule(['pods']), status), false);
  assert.equal(ruleMatches(rule(['*']), status), false, '`*` is every resource without a subresource');
  assert.equal(ruleMatches(rule(['*/status']), status), true);
  assert.equal(ruleMatches(rule(['pods/*']), status), true);
  assert.equal(ruleMatches(rule(['pods/*']), attributes()), true, 'a `*` subresource includes the main resource');
  assert.equal(ruleMatches(rule(['*/*']), attributes()), true, '`*/*` is every resource and every subresource');
  assert.equal(ruleMatches(rule(['deployments/status']), status), false);
});

test('operations, groups, versions and scope', () => {
  assert.equal(ruleMatches(rule(['pods'], { operations: ['UPDATE', 'DELETE'] }), attributes()), false);
  assert.equal(ruleMatches(rule(['pods'], { operations: ['CREATE'] }), attributes()), true);
  assert.equal(ruleMatches(rule(['pods'], { apiGroups: ['apps'] }), attributes()), false);
  assert.equal(ruleMatches(rule(['pods'], { apiVersions: ['v2'] }), attributes()), false);
  assert.equal(ruleMatches(rule(['pods'], { scope: 'Cluster' }), attributes()), false);
  assert.equal(ruleMatches(rule(['pods'], { scope: 'Namespaced' }), attributes()), true);
  const namespaceObject = attributes({ kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: undefined, name: 'ns' });
  assert.equal(ruleMatches(rule(['namespaces'], { scope: 'Cluster' }), namespaceObject), true, 'a Namespace is cluster-scoped although it names a namespace');
  assert.equal(ruleMatches(rule(['namespaces'], { scope: 'Namespaced' }), namespaceObject), false);
  const node = attributes({ resource: { group: '', version: 'v1', resource: 'nodes' }, namespace: undefined });
  assert.equal(ruleMatches(rule(['nodes'], { scope: 'Cluster' }), node), true);
});

function webhook(fields: Record<string, unknown>) {
  const config: KubeObject = {
    metadata: { name: 'c' },
    webhooks: [{ name: 'w.example.com', rules: [rule(['pods'])], clientConfig: { url: 'https://127.0.0.1/' }, ...fields }],
  };
  const [hook] = webhooksOf('validating', config);
  assert.ok(hook);
  return hook;
}

const context = (namespaces: Record<string, Record<string, string>>): MatchContext => ({
  namespaceLabels: (name) => namespaces[name],
  equivalents: () => [],
});

test('namespaceSelector: a missing namespace is a 404 only for webhooks whose rules match', () => {
  const selective = webhook({ namespaceSelector: { matchLabels: { env: 'prod' } } });
  assert.ok(matchWebhook(selective, attributes(), context({ ns: { env: 'prod' } })));
  assert.equal(matchWebhook(selective, attributes(), context({ ns: { env: 'dev' } })), undefined);
  assert.throws(
    () => matchWebhook(selective, attributes(), context({})),
    (err) => err instanceof StatusError && err.status.code === 404 && err.status.message === 'namespaces "ns" not found',
  );
  const otherRules = webhook({ namespaceSelector: { matchLabels: { env: 'prod' } }, rules: [rule(['configmaps'])] });
  assert.equal(matchWebhook(otherRules, attributes(), context({})), undefined);
});

test('a selector that does not convert is an internal error when the rules match', () => {
  const broken = webhook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } });
  assert.throws(
    () => matchWebhook(broken, attributes(), context({ ns: {} })),
    (err) => err instanceof StatusError && err.status.code === 500 && err.status.message === 'Internal error occurred: "Bogus" is not a valid label selector operator',
  );
});

test('objectSelector: the new or the old object', () => {
  const selective = webhook({ objectSelector: { matchLabels: { app: 'b' } } });
  const ctx = context({ ns: {} });
  assert.equal(matchWebhook(selective, attributes(), ctx), undefined);
  const old: KubeObject = { metadata: { name: 'p', labels: { app: 'b' } } };
  assert.ok(matchWebhook(selective, attributes({ operation: 'UPDATE', oldObject: old }), ctx));
  assert.ok(matchWebhook(selective, attributes({ operation: 'DELETE', object: undefined, oldObject: old }), ctx));
});

test('matchPolicy Equivalent: the first rule that matches another version decides the invocation', () => {
  const v1Only = webhook({ rules: [rule(['widgets'], { apiVersions: ['v1'] })] });
  const request = attributes({ kind: { group: 'ex.com', version: 'v2', kind: 'Widget' }, resource: { group: 'ex.com', version: 'v2', resource: 'widgets' } });
  const ctx: MatchContext = {
    namespaceLabels: () => ({}),
    equivalents: () => [
      { resource: { group: 'ex.com', version: 'v2', resource: 'widgets' }, kind: { group: 'ex.com', version: 'v2', kind: 'Widget' } },
      { resource: { group: 'ex.com', version: 'v1', resource: 'widgets' }, kind: { group: 'ex.com', version: 'v1', kind: 'Widget' } },
    ],
  };
  const invocation = matchWebhook(v1Only, request, ctx);
  assert.deepEqual(invocation?.kind, { group: 'ex.com', version: 'v1', kind: 'Widget' });
  assert.equal(matchWebhook(webhook({ rules: [rule(['widgets'], { apiVersions: ['v1'] })], matchPolicy: 'Exact' }), request, ctx), undefined);
});
