// podops' own install manifests (`podops manifests`: Namespace, ServiceAccount, RBAC, Service,
// Deployment, PodDisruptionBudget, ValidatingAdmissionPolicy and binding, webhook configurations)
// applied to the sandbox with `kubectl apply -f -`, as on a real cluster.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let manifests: string;

before(async () => {
  h = await startHarness();
  manifests = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['src/cli/main.ts', 'manifests'], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
  );
});
after(() => h.stop());

test('kubectl apply -f - creates every object, and applying again changes nothing', { skip: skipWithoutKubectl }, async () => {
  const first = await h.kubectl(['apply', '-f', '-'], manifests);
  assert.equal(first.code, 0, first.stderr);
  for (const line of [
    'namespace/podops-system created',
    'serviceaccount/podops created',
    'clusterrole.rbac.authorization.k8s.io/podops created',
    'clusterrolebinding.rbac.authorization.k8s.io/podops created',
    'role.rbac.authorization.k8s.io/podops created',
    'rolebinding.rbac.authorization.k8s.io/podops created',
    'service/podops-webhook created',
    'deployment.apps/podops created',
    'poddisruptionbudget.policy/podops created',
    'validatingadmissionpolicy.admissionregistration.k8s.io/podops-service-account-limits created',
    'validatingadmissionpolicybinding.admissionregistration.k8s.io/podops-service-account-limits created',
    'mutatingwebhookconfiguration.admissionregistration.k8s.io/podops-mutating created',
    'validatingwebhookconfiguration.admissionregistration.k8s.io/podops-validating created',
  ]) {
    assert.ok(first.stdout.includes(line), `${line}\n${first.stdout}`);
  }
  const again = await h.kubectl(['apply', '-f', '-'], manifests);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /created/);

  const binding = await h.http('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/podops');
  assert.deepEqual(binding.json.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'podops' });
  const pdb = await h.http('GET', '/apis/policy/v1/namespaces/podops-system/poddisruptionbudgets/podops');
  assert.equal(pdb.json.metadata.generation, 1);
  assert.deepEqual(pdb.json.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  const policy = await h.http('GET', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/podops-service-account-limits');
  assert.equal(policy.json.spec.matchConstraints.matchPolicy, 'Equivalent');
  assert.deepEqual(policy.json.spec.matchConstraints.namespaceSelector, {});
  assert.equal(policy.json.spec.matchConstraints.resourceRules[0].scope, '*');
  const listed = await h.kubectl(['get', 'pdb,rolebinding', '-n', 'podops-system']);
  assert.match(listed.stdout, /poddisruptionbudget\.policy\/podops\s+1\s+N\/A\s+0\s+/);
  assert.match(listed.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/podops\s+Role\/podops\s+/);
});
