// podops' own install manifests (`podops manifests`: Namespace, ServiceAccount, RBAC, Service,
// Deployment, PodDisruptionBudget, ValidatingAdmissionPolicy and binding, webhook configurations)
// applied to the sandbox with `kubectl apply -f -`, as on a real cluster.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { runCli } from '../support/cli.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';

let dir: string;
let sandbox: Sandbox;
let manifests: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'podops-install-'));
  sandbox = await startSandbox({ kubeconfigPath: join(dir, 'kubeconfig') });
  ({ stdout: manifests } = await runCli(['manifests']));
});
after(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

/** kubectl against the sandbox, `input` on its stdin; rejects on a non-zero exit. */
function kubectl(args: string[], input = ''): Promise<{ stdout: string; stderr: string }> {
  const run = promisify(execFile)(kubectlPath ?? 'kubectl', [`--kubeconfig=${join(dir, 'kubeconfig')}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { encoding: 'utf8' });
  run.child.stdin?.end(input);
  return run;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const get = async (path: string): Promise<any> => (await fetch(`${sandbox.url}${path}`)).json();

test('kubectl apply -f - creates every object, and applying again changes nothing', { skip: skipWithoutKubectl }, async () => {
  const first = await kubectl(['apply', '-f', '-'], manifests);
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
  const again = await kubectl(['apply', '-f', '-'], manifests);
  assert.doesNotMatch(again.stdout, /created/);

  const binding = await get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/podops');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'podops' });
  const pdb = await get('/apis/policy/v1/namespaces/podops-system/poddisruptionbudgets/podops');
  assert.equal(pdb.metadata.generation, 1);
  assert.deepEqual(pdb.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  const policy = await get('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/podops-service-account-limits');
  assert.equal(policy.spec.matchConstraints.matchPolicy, 'Equivalent');
  assert.deepEqual(policy.spec.matchConstraints.namespaceSelector, {});
  assert.equal(policy.spec.matchConstraints.resourceRules[0].scope, '*');
  const listed = await kubectl(['get', 'pdb,rolebinding', '-n', 'podops-system']);
  assert.match(listed.stdout, /poddisruptionbudget\.policy\/podops\s+1\s+N\/A\s+0\s+/);
  assert.match(listed.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/podops\s+Role\/podops\s+/);
});
