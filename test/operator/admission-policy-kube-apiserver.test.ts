// The ValidatingAdmissionPolicy and the RBAC that `podops manifests` ships, enforced by a real kube-apiserver:
// a client acting as podops' ServiceAccount (impersonated) makes podops' own writes, which pass, and what a
// stolen token would try, which the API server denies with the policy's words. This is CEL as the API server
// runs it (test/operator/admission-policy.test.ts evaluates the same policy with a CEL library, on every run).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { SERVICE_READY_GATE, TO_DELETE_LABEL, TRANSITION_RULE_FINALIZER, idLabelKey } from '../../src/api/protocol.ts';
import { RL_FIELD_MANAGER, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL } from '../../src/api/rolloutlifecycle.ts';
import { ApiError, type KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { DEPLOYMENTS, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, PODS, PODTRANSITIONRULES, SERVICE_ACCOUNTS } from '../../src/kube/resources.ts';
import { ADMISSION_POLICY_NAME } from '../../src/operator/admission-policy.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests } from '../../src/operator/manifests.ts';
import { WEBHOOK_NAMES, urlClientConfig, webhookConfigurations } from '../../src/operator/webhook-configuration.ts';
import { resourceTypeOf, skipWithoutKubeApiserver, startKubeApiserver, type KubeApiserver } from '../support/kube-apiserver.ts';
import { until } from '../support/wait.ts';

const NS = 'shop';
const PODOPS = `system:serviceaccount:${DEFAULT_MANIFEST_OPTIONS.namespace}:podops`;
/** The objects of an install that decide what podops' ServiceAccount may do. */
const INSTALLED = new Set(['CustomResourceDefinition', 'Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

describe('the admission policy and RBAC on a real kube-apiserver', { skip: skipWithoutKubeApiserver }, () => {
  let server: KubeApiserver;
  let admin: KubeClient;
  let podops: KubeClient;

  before(async () => {
    server = await startKubeApiserver();
    admin = server.client();
    podops = server.client(PODOPS);
    for (const object of manifests().filter((o) => INSTALLED.has(o.kind as string))) await admin.create(resourceTypeOf(object), object as KubeObject);
    // podops' webhook configurations as installed, pointing nowhere and failing open: only their own writes matter here.
    for (const configuration of webhookConfigurations(urlClientConfig('https://127.0.0.1:1'))) {
      const open = { ...configuration, webhooks: (configuration.webhooks as Record<string, unknown>[]).map((w) => ({ ...w, failurePolicy: 'Ignore', timeoutSeconds: 1 })) };
      await admin.create(resourceTypeOf(configuration), open as unknown as KubeObject);
    }
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // No kube-controller-manager here: the namespace's default ServiceAccount is made by hand.
    await admin.create(SERVICE_ACCOUNTS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } });
    // The policy is enforced once the API server has loaded it (a dry run is admitted like a write, and changes nothing).
    await admin.create(DEPLOYMENTS, deployment('probe'));
    const hold = () => podops.patch(DEPLOYMENTS, NS, 'probe', 'merge', { spec: { paused: true } }, { dryRun: true });
    await until(() => hold().then(() => 'admitted', (err: unknown) => String(err)), (answer) => answer.includes(ADMISSION_POLICY_NAME), 'the policy to be enforced', 30_000);
  });
  after(async () => {
    admin?.close();
    podops?.close();
    await server?.stop();
  });

  const deployment = (name: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  });

  /** The write is denied by the policy, with this message. */
  const deniedBy = async (write: Promise<unknown>, message: RegExp): Promise<void> => {
    const err = await write.then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApiError, `denied (${String(err)})`);
    assert.match(err.message, new RegExp(`ValidatingAdmissionPolicy '${ADMISSION_POLICY_NAME}' with binding '${ADMISSION_POLICY_NAME}' denied request`));
    assert.match(err.message, message);
  };

  test("podops' writes of a hold, in its order, pass: the label, the hold and its stash, the release, the label gone", async () => {
    await admin.create(DEPLOYMENTS, deployment('web'));
    const rollout = { fieldManager: RL_FIELD_MANAGER };
    await podops.patch(DEPLOYMENTS, NS, 'web', 'merge', { metadata: { labels: { [RL_WORKLOAD_LABEL]: 'web' } } }, rollout);
    await podops.patch(DEPLOYMENTS, NS, 'web', 'merge', { metadata: { annotations: { [RL_USER_SETTINGS_ANNOTATION]: '{"paused":false}' } }, spec: { paused: true, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } }, rollout);
    await podops.patch(DEPLOYMENTS, NS, 'web', 'merge', { metadata: { annotations: { [RL_USER_SETTINGS_ANNOTATION]: null } }, spec: { paused: null, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } }, rollout);
    await podops.patch(DEPLOYMENTS, NS, 'web', 'merge', { metadata: { labels: { [RL_WORKLOAD_LABEL]: null } } }, rollout);
  });

  test('a stolen token cannot hold a workload no RolloutLifecycle targets, nor give any workload an owner or a finalizer', async () => {
    await admin.create(DEPLOYMENTS, deployment('payments'));
    await deniedBy(podops.patch(DEPLOYMENTS, NS, 'payments', 'merge', { spec: { paused: true } }), /may only hold or release a workload labelled rolloutlifecycle\.kusionstack\.io\/name/);
    await deniedBy(podops.patch(DEPLOYMENTS, NS, 'payments', 'merge', { spec: { strategy: { type: 'Recreate', rollingUpdate: null } } }), /may only hold or release/);
    const dangling = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '6c1d1b52-0000-4000-8000-00000000dead' };
    await deniedBy(podops.patch(DEPLOYMENTS, NS, 'payments', 'merge', { metadata: { ownerReferences: [dangling] } }), /owner references or the finalizers/);
    await deniedBy(podops.patch(DEPLOYMENTS, NS, 'payments', 'merge', { metadata: { finalizers: ['example.com/block'] } }), /owner references or the finalizers/);
    await deniedBy(podops.patch(DEPLOYMENTS, NS, 'payments', 'merge', { spec: { replicas: 0 } }), /rollout settings/);
    const stored = await admin.get<KubeObject & { spec: { paused?: boolean } }>(DEPLOYMENTS, NS, 'payments');
    assert.deepEqual([stored.spec.paused, stored.metadata.ownerReferences, stored.metadata.finalizers], [undefined, undefined, undefined]);
  });

  test("controlled pods: podops' label and condition pass; the image, and a pod that is not controlled, are refused", async () => {
    const pod = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS, labels },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], readinessGates: [{ conditionType: SERVICE_READY_GATE }] },
    });
    await admin.create(PODS, pod('web-0', { app: 'web', 'kusionstack.io/control': 'true' }));
    await admin.create(PODS, pod('other', { app: 'other' }));
    await podops.patch(PODS, NS, 'web-0', 'merge', { metadata: { labels: { [idLabelKey('operating', 'upgrade')]: '1', [idLabelKey('operation-type', 'upgrade')]: 'update' } } });
    await podops.patch(PODS, NS, 'web-0', 'strategic', { status: { conditions: [{ type: SERVICE_READY_GATE, status: 'False', reason: 'ReadinessGateUpdated' }] } }, { subresource: 'status' });
    await deniedBy(podops.patch(PODS, NS, 'web-0', 'strategic', { spec: { containers: [{ name: 'web', image: 'attacker/miner:latest' }] } }), /may not change a pod's spec/);
    await deniedBy(podops.patch(PODS, NS, 'other', 'merge', { metadata: { labels: { [TO_DELETE_LABEL]: '1' } } }), /may only write pods labelled kusionstack\.io\/control=true/);
    await deniedBy(podops.delete(PODS, NS, 'other'), /may only write pods labelled kusionstack\.io\/control=true/);
    await deniedBy(podops.delete(PODS, NS, 'web-0'), /may only delete pods labelled collaset\.kusionstack\.io\/to-delete/);
  });

  test("evictions: podops' own (the pod's grace period) pass; one that kills at once is refused", async () => {
    await admin.create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'evicted', namespace: NS }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await deniedBy(
      podops.request({ method: 'POST', path: `/api/v1/namespaces/${NS}/pods/evicted/eviction`, body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted', namespace: NS }, deleteOptions: { gracePeriodSeconds: 0 } } }),
      /own grace period/,
    );
    await podops.evict(NS, 'evicted');
  });

  test('its webhook configurations: the caBundle passes, a rule does not', async () => {
    type Configuration = KubeObject & { webhooks: Record<string, unknown>[] };
    const live = await podops.get<Configuration>(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, WEBHOOK_NAMES.mutatingConfiguration);
    const withCa = { ...live, webhooks: live.webhooks.map((w) => ({ ...w, clientConfig: { ...(w.clientConfig as object), caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') } })) };
    const written = await podops.replace<Configuration>(MUTATING_WEBHOOK_CONFIGURATIONS, withCa);
    const widened = { ...written, webhooks: written.webhooks.map((w) => ({ ...w, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] })) };
    await deniedBy(podops.replace(MUTATING_WEBHOOK_CONFIGURATIONS, widened), /only change the caBundle/);
  });

  test("PodTransitionRules: podops' finalizer passes, a change of the rules does not", async () => {
    await admin.create(PODTRANSITIONRULES, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: 'budget', namespace: NS }, spec: { selector: {}, rules: [{ name: 'b', availablePolicy: { maxUnavailableValue: 1 } }] } });
    await podops.patch(PODTRANSITIONRULES, NS, 'budget', 'merge', { metadata: { finalizers: [TRANSITION_RULE_FINALIZER] } });
    await deniedBy(podops.patch(PODTRANSITIONRULES, NS, 'budget', 'merge', { spec: { rules: [] } }), /may not change the spec of a PodTransitionRule/);
    await podops.patch(PODTRANSITIONRULES, NS, 'budget', 'merge', { metadata: { finalizers: null } });
  });

  test('the pods other users write are not the policy\'s concern', async () => {
    const pod = await admin.patch<Pod>(PODS, NS, 'other', 'merge', { metadata: { labels: { team: 'x' } } });
    assert.equal(pod.metadata.labels?.team, 'x');
  });
});
