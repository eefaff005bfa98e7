// The access and policy kinds the sandbox stores with their real validation and defaults, without
// enforcing them: RBAC (Roles, ClusterRoles and their bindings), PodDisruptionBudgets and the pods'
// eviction subresource that consults them, ValidatingAdmissionPolicies and their bindings, and
// HorizontalPodAutoscalers in autoscaling/v2 and v1 (one stored object, converted).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'access';
const rbac = '/apis/rbac.authorization.k8s.io/v1';
const pdbs = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
const admission = '/apis/admissionregistration.k8s.io/v1';

before(async () => {
  h = await startHarness();
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
after(() => h.stop());

const causes = (body: { details?: { causes?: { field?: string; message?: string }[] } }): string[] =>
  (body.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('RBAC', () => {
  test('bindings get the RBAC group on their roleRef and on User and Group subjects; roleRef never changes', async () => {
    const created = await h.http('POST', `${rbac}/namespaces/${ns}/rolebindings`, {
      metadata: { name: 'rb' },
      roleRef: { kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', name: 'jane' },
        { kind: 'ServiceAccount', name: 'bot', namespace: ns },
      ],
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
    assert.deepEqual(created.json.subjects[0], { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' });
    const changed = await h.http('PATCH', `${rbac}/namespaces/${ns}/rolebindings/rb`, { roleRef: { name: 'writer' } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.json.message,
      'RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"writer"}: cannot change roleRef',
    );
  });

  test('rules, subjects and role references are validated with the real messages', async () => {
    const role = await h.http('POST', `${rbac}/namespaces/${ns}/roles`, { metadata: { name: 'bad' }, rules: [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    assert.equal(role.status, 422);
    assert.deepEqual(causes(role.json), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    const binding = await h.http('POST', `${rbac}/clusterrolebindings`, {
      metadata: { name: 'bad' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
      subjects: [{ kind: 'ServiceAccount', name: 'bot' }, { kind: 'Robot', name: 'r' }],
    });
    assert.equal(binding.status, 422);
    assert.deepEqual(causes(binding.json), [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    // Names are path segments: a ClusterRole may be called `system:aggregate-to-view`.
    const named = await h.http('POST', `${rbac}/clusterroles`, { metadata: { name: 'system:aggregate-to-view' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    assert.equal(named.status, 201, named.text);
  });
});

describe('PodDisruptionBudgets and evictions', () => {
  test('a new budget: generation 1, the zero status; validation of the spec and the status', async () => {
    const created = await h.http('POST', pdbs, { metadata: { name: 'web' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.generation, 1);
    assert.deepEqual(created.json.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const invalid = await h.http('POST', pdbs, { metadata: { name: 'bad' }, spec: { minAvailable: '150%', unhealthyPodEvictionPolicy: 'Sometimes' } });
    assert.equal(invalid.status, 422);
    assert.deepEqual(causes(invalid.json), [
      'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
    const status = await h.http('PATCH', `${pdbs}/web/status`, { status: { disruptionsAllowed: -1 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(status.status, 422);
    assert.deepEqual(causes(status.json), ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('eviction: a pod no budget covers goes at once; a budget not yet processed answers 429', async () => {
    const evict = (name: string) => h.http('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });
    await h.http('POST', `/api/v1/namespaces/${ns}/pods`, podManifest('loner'));
    const free = await evict('loner');
    assert.equal(free.status, 201, free.text);
    assert.deepEqual(free.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/loner`)).status, 404);

    // A running pod the `web` budget covers: with no disruption controller, its status never catches up.
    await h.http('POST', `/api/v1/namespaces/${ns}/pods`, podManifest('web-1', { metadata: { labels: { app: 'web' } }, spec: { nodeName: 'node-x' } }));
    const running = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/web-1`)).json;
    const ready = { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' };
    const updated = await h.http('PUT', `/api/v1/namespaces/${ns}/pods/web-1/status`, { ...running, status: { ...running.status, phase: 'Running', conditions: [ready] } });
    assert.equal(updated.status, 200, updated.text);
    const blocked = await evict('web-1');
    assert.equal(blocked.status, 429);
    assert.equal(blocked.headers.get('retry-after'), '10');
    assert.deepEqual(blocked.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }], retryAfterSeconds: 10 },
      code: 429,
    });

    // Once the budget's status allows one disruption, the eviction of the ready pod takes it and marks the pod.
    const pdb = (await h.http('GET', `${pdbs}/web`)).json;
    const allowed = await h.http('PUT', `${pdbs}/web/status`, { ...pdb, status: { ...pdb.status, observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 } });
    assert.equal(allowed.status, 200, allowed.text);
    const evicted = await evict('web-1');
    assert.equal(evicted.status, 201, evicted.text);
    const after = (await h.http('GET', `${pdbs}/web`)).json;
    assert.equal(after.status.disruptionsAllowed, 0);
    assert.ok(after.status.disruptedPods['web-1']);
    assert.equal(after.status.conditions[0].type, 'DisruptionAllowed');
    assert.equal(after.status.conditions[0].status, 'False');
    const pod = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/web-1`)).json;
    assert.ok(pod.metadata.deletionTimestamp, 'a pod on a node is deleted gracefully');
    const target = pod.status.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget');
    assert.equal(target.reason, 'EvictionByEvictionAPI');
    assert.equal(target.message, 'Eviction API: evicting');

    const mismatch = await h.http('POST', `/api/v1/namespaces/${ns}/pods/web-1/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.message, 'name in URL does not match name in Eviction object');
  });
});

describe('ValidatingAdmissionPolicies and bindings (stored, not enforced)', () => {
  test('defaults: failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope *; status and generation', async () => {
    const created = await h.http('POST', `${admission}/validatingadmissionpolicies`, {
      metadata: { name: 'p' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        validations: [{ expression: 'object.metadata.name != "x"' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.failurePolicy, 'Fail');
    assert.deepEqual(created.json.spec.matchConstraints, {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' }],
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
    });
    assert.equal(created.json.metadata.generation, 1);
    assert.deepEqual(created.json.status, {});
  });

  test('validation with the real messages', async () => {
    const policy = await h.http('POST', `${admission}/validatingadmissionpolicies`, {
      metadata: { name: 'bad' },
      spec: { failurePolicy: 'Maybe', validations: [{ expression: ' ', reason: 'Gone' }] },
    });
    assert.equal(policy.status, 422);
    assert.deepEqual(causes(policy.json), [
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'spec.matchConstraints: Required value',
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].reason: Unsupported value: "Gone": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
    ]);
    const binding = await h.http('POST', `${admission}/validatingadmissionpolicybindings`, {
      metadata: { name: 'bad' },
      spec: { validationActions: ['Deny', 'Warn'], paramRef: { name: 'x', selector: {} } },
    });
    assert.equal(binding.status, 422);
    assert.deepEqual(causes(binding.json), [
      'spec.policyName: Required value',
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });
});

describe('HorizontalPodAutoscalers', () => {
  const v2 = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
  const v1 = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;

  test('a v1 object is stored as v2 (the CPU target as a metric) and read back in either version', async () => {
    const created = await h.http('POST', v1, {
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, 'autoscaling/v1');
    assert.deepEqual(created.json.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    assert.deepEqual(created.json.status, { currentReplicas: 0, desiredReplicas: 0 });
    const asV2 = (await h.http('GET', `${v2}/web`)).json;
    assert.deepEqual(asV2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    assert.deepEqual(asV2.status, { desiredReplicas: 0 });
  });

  test('what v1 cannot hold travels in the round-trip annotations', async () => {
    const created = await h.http('POST', v2, {
      metadata: { name: 'mem' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec.behavior.scaleDown, { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
    const asV1 = (await h.http('GET', `${v1}/mem`)).json;
    assert.equal(asV1.spec.targetCPUUtilizationPercentage, undefined);
    assert.deepEqual(JSON.parse(asV1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']), [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } }]);
    assert.match(asV1.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior'], /^\{"ScaleUp":\{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":\[/);
    // Writing the v1 object back keeps the v2 metrics.
    const replaced = await h.http('PUT', `${v1}/mem`, { ...asV1, spec: { ...asV1.spec, maxReplicas: 4 } });
    assert.equal(replaced.status, 200, replaced.text);
    const again = (await h.http('GET', `${v2}/mem`)).json;
    assert.equal(again.spec.maxReplicas, 4);
    assert.deepEqual(again.spec.metrics, [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } }]);
    assert.equal(again.metadata.annotations, undefined);
  });

  test('validation names the v2 fields', async () => {
    const res = await h.http('POST', v2, { metadata: { name: 'bad' }, spec: { scaleTargetRef: { kind: 'Deployment' }, minReplicas: 3, maxReplicas: 2, metrics: [{ type: 'Pods' }] } });
    assert.equal(res.status, 422);
    assert.deepEqual(causes(res.json), [
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
      'spec.scaleTargetRef.name: Required value',
      'spec.metrics[0].pods: Required value: must populate information for the given metric source',
    ]);
  });
});

describe('kubectl generators (protobuf bodies) and printers', { skip: skipWithoutKubectl }, () => {
  test('create role, rolebinding, pdb; autoscale; get them with the real columns', async () => {
    for (const args of [
      ['create', 'role', 'reader', '--verb=get,list', '--resource=pods'],
      ['create', 'rolebinding', 'readers', '--role=reader', '--user=jane', `--serviceaccount=${ns}:bot`],
      ['create', 'clusterrole', 'viewer', '--verb=get', '--resource=configmaps'],
      ['create', 'pdb', 'api', '--selector=app=api', '--max-unavailable=25%'],
      ['create', 'deployment', 'api', '--image=nginx'],
      ['autoscale', 'deployment', 'api', '--cpu-percent=60', '--min=2', '--max=5'],
    ]) {
      const res = await h.kubectl([...args, '-n', ns]);
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    }
    const bindings = await h.kubectl(['get', 'rolebinding', 'readers', '-n', ns, '-o', 'wide']);
    assert.match(bindings.stdout, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\nreaders\s+Role\/reader\s+\S+\s+jane\s+access:bot\n$/);
    const budget = await h.kubectl(['get', 'pdb', 'api', '-n', ns]);
    assert.match(budget.stdout, /\napi\s+N\/A\s+25%\s+0\s+/);
    const autoscaler = await h.kubectl(['get', 'hpa', 'api', '-n', ns]);
    assert.match(autoscaler.stdout, /\napi\s+Deployment\/api\s+cpu: <unknown>\/60%\s+2\s+5\s+0\s+/);
  });
});
