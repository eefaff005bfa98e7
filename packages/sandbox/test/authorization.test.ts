// authorization.k8s.io/v1 as a kube-apiserver with the AlwaysAllow authorizer serves it: the four
// access reviews are created (201) and answered, never stored; every access is allowed, the rules
// of a user are the wildcard rules, complete; requests are validated with the real messages; and
// `kubectl auth can-i` works.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import type { Json } from './workloads.ts';

let h: Harness;
const base = '/apis/authorization.k8s.io/v1';
const apiVersion = 'authorization.k8s.io/v1';

before(async () => {
  h = await startHarness();
});
after(() => h.stop());

const review = (kind: string, spec: Json, metadata: Json = {}): Json => ({ apiVersion, kind, metadata, spec });
const post = (resource: string, body: Json, query = '?fieldManager=tester'): ReturnType<Harness['http']> => h.http('POST', `${base}/${resource}${query}`, body);
const causes = (body: Json): string[] => body.details.causes.map((c: Json) => `${c.field}: ${c.message}`);

describe('access reviews under AlwaysAllow', () => {
  test('discovery: four create-only resources, with no storage version', async () => {
    const list = (await h.http('GET', base)).json;
    assert.deepEqual(list.resources, [
      { name: 'localsubjectaccessreviews', singularName: 'localsubjectaccessreview', namespaced: true, kind: 'LocalSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
      { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
      { name: 'subjectaccessreviews', singularName: 'subjectaccessreview', namespaced: false, kind: 'SubjectAccessReview', verbs: ['create'] },
    ]);
    const get = await h.http('GET', `${base}/subjectaccessreviews`);
    assert.equal(get.status, 405);
  });

  test('a SubjectAccessReview is allowed: 201 with the review, its managedFields and status.allowed, and nothing stored', async () => {
    const spec = { resourceAttributes: { namespace: 'x', verb: 'create', group: 'batch', resource: 'jobs' }, user: 'jane', groups: ['dev'] };
    const res = await post('subjectaccessreviews', review('SubjectAccessReview', spec));
    assert.equal(res.status, 201, res.text);
    const { managedFields, ...metadata } = res.json.metadata;
    assert.deepEqual({ ...res.json, metadata }, { kind: 'SubjectAccessReview', apiVersion, metadata: { creationTimestamp: null }, spec, status: { allowed: true } });
    assert.equal(managedFields.length, 1);
    assert.equal(managedFields[0].manager, 'tester');
    assert.equal(managedFields[0].operation, 'Update');
    assert.deepEqual(managedFields[0].fieldsV1, {
      'f:spec': { 'f:groups': {}, 'f:resourceAttributes': { '.': {}, 'f:group': {}, 'f:namespace': {}, 'f:resource': {}, 'f:verb': {} }, 'f:user': {} },
    });
    const nonResource = await post('selfsubjectaccessreviews', review('SelfSubjectAccessReview', { nonResourceAttributes: { path: '/healthz', verb: 'get' } }));
    assert.equal(nonResource.status, 201, nonResource.text);
    assert.deepEqual(nonResource.json.status, { allowed: true });
  });

  test('a LocalSubjectAccessReview keeps its namespace, which need not exist', async () => {
    const spec = { resourceAttributes: { namespace: 'nowhere', verb: 'get', resource: 'pods' }, user: 'jane' };
    const res = await h.http('POST', `${base}/namespaces/nowhere/localsubjectaccessreviews`, review('LocalSubjectAccessReview', spec));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.namespace, 'nowhere');
    assert.deepEqual(res.json.status, { allowed: true });
    const mismatch = await h.http('POST', `${base}/namespaces/nowhere/localsubjectaccessreviews`, review('LocalSubjectAccessReview', { ...spec, resourceAttributes: { ...spec.resourceAttributes, namespace: 'other' } }));
    assert.equal(mismatch.status, 422);
    assert.deepEqual(causes(mismatch.json), ['spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace']);
    const nonResource = await h.http('POST', `${base}/namespaces/nowhere/localsubjectaccessreviews`, review('LocalSubjectAccessReview', { nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'jane' }));
    assert.deepEqual(causes(nonResource.json), ['spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request']);
  });

  test('validation: the internal kind is empty, so the message names only the group', async () => {
    const noUser = await post('subjectaccessreviews', review('SubjectAccessReview', { resourceAttributes: { verb: 'get', resource: 'pods' } }));
    assert.equal(noUser.status, 422);
    assert.deepEqual(noUser.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
      reason: 'Invalid',
      details: { group: 'authorization.k8s.io', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "": at least one of user or group must be specified', field: 'spec.user' }] },
      code: 422,
    });
    const both = await post('selfsubjectaccessreviews', review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/healthz', verb: 'get' } }));
    assert.equal(
      both.json.message,
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    const neither = await post('selfsubjectaccessreviews', review('SelfSubjectAccessReview', {}));
    assert.deepEqual(causes(neither.json), ['spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified']);
    const named = await post('selfsubjectaccessreviews', review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get' } }, { name: 'mine' }));
    assert.equal(named.json.details.causes[0].field, 'metadata');
    assert.match(named.json.details.causes[0].message, /: must be empty$/);
    const selectors = await post(
      'selfsubjectaccessreviews',
      review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'list', resource: 'pods', labelSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In' }] }, fieldSelector: {} } }),
    );
    assert.deepEqual(causes(selectors.json), [
      'spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
      'spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements',
      "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
  });

  test('selectors the authorizer cannot read are reported in status.evaluationError', async () => {
    const check = async (resourceAttributes: Json): Promise<Json> => (await post('selfsubjectaccessreviews', review('SelfSubjectAccessReview', { resourceAttributes }))).json.status;
    assert.deepEqual(await check({ verb: 'list', resource: 'pods', labelSelector: { rawSelector: 'app in (web' } }), {
      allowed: true,
      evaluationError: 'spec.resourceAttributes.labelSelector ignored due to parse error',
    });
    assert.deepEqual(
      await check({
        verb: 'list',
        resource: 'pods',
        fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'Exists' }] },
        labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }, { key: 'tier', operator: 'Near', values: ['x'] }] },
      }),
      { allowed: true, evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error; spec.resourceAttributes.labelSelector partially ignored due to parse error' },
    );
    assert.deepEqual(await check({ verb: 'list', resource: 'pods', fieldSelector: { rawSelector: 'spec.nodeName=node-1' } }), { allowed: true });
  });

  test('a SelfSubjectRulesReview answers the wildcard rules, complete; without a namespace it is a 400', async () => {
    const res = await post('selfsubjectrulesreviews', review('SelfSubjectRulesReview', { namespace: 'default' }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json, {
      kind: 'SelfSubjectRulesReview',
      apiVersion,
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    });
    const missing = await post('selfsubjectrulesreviews', review('SelfSubjectRulesReview', {}));
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'no namespace on request', reason: 'BadRequest', code: 400 });
  });
});

describe('kubectl auth can-i', { skip: skipWithoutKubectl }, () => {
  test('a resource in a namespace, a path, and --list', async () => {
    const jobs = await h.kubectl(['auth', 'can-i', 'create', 'jobs', '-n', 'x']);
    assert.equal(jobs.code, 0, jobs.stderr);
    assert.equal(jobs.stdout, 'yes\n');
    const path = await h.kubectl(['auth', 'can-i', 'get', '/healthz']);
    assert.equal(path.stdout, 'yes\n');
    const list = await h.kubectl(['auth', 'can-i', '--list', '-n', 'x']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]\n\s+\[\*\]\s+\[\]\s+\[\*\]\n$/);
  });
});
