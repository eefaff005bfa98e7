// The ValidatingAdmissionPolicy that limits podops' ServiceAccount, evaluated with a conformant CEL engine
// on objects as an API server presents them (each write computed by the sandbox as a dry run): podops'
// own writes pass, what a stolen token would try is denied, and nobody else is concerned.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { AVAILABLE_CONDITIONS_ANNOTATION, TRANSITION_RULE_FINALIZER, GRACE_DELETE_TIMESTAMP_ANNOTATION, HELD_POD_DELETED_ANNOTATION, SERVICE_AVAILABLE_LABEL, SERVICE_READY_GATE, TO_DELETE_LABEL, idLabelKey, transitionDetailAnnotation, EVICTION_PAUSED_UNTIL_ANNOTATION } from '../../src/api/protocol.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL } from '../../src/api/rolloutlifecycle.ts';
import { DEPLOYMENTS, MUTATING_WEBHOOK_CONFIGURATIONS, PODS } from '../../src/kube/resources.ts';
import { admissionPolicy } from '../../src/operator/admission-policy.ts';
import { hookJob } from '../../src/rollout/jobs.ts';
import { urlClientConfig, webhookConfigurations } from '../../src/operator/webhook-configuration.ts';
import { evaluatePolicy, type PolicyRequest } from '../support/admission-policy.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

const PODOPS = 'system:serviceaccount:podops-system:podops';
const [policy] = admissionPolicy('podops-system', 'podops', {}) as unknown as [Parameters<typeof evaluatePolicy>[0]];
const PODS_RESOURCE = { group: '', version: 'v1', resource: 'pods' };

describe('the ValidatingAdmissionPolicy on podops\' ServiceAccount', () => {
  const env = useSandboxClient();
  let controlled: Pod;
  let uncontrolled: Pod;
  let webhooks: KubeObject;

  before(async () => {
    const make = (name: string, labels: Record<string, string>) =>
      env.client.create<Pod>(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', labels, finalizers: ['prot.podopslifecycle.kusionstack.io/lb'], ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: '6c1d1b52-0000-4000-8000-000000000001' }] },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], readinessGates: [{ conditionType: SERVICE_READY_GATE }] },
      });
    controlled = await make('web-0', { app: 'web', 'kusionstack.io/control': 'true', [SERVICE_AVAILABLE_LABEL]: '1' });
    uncontrolled = await make('other', { app: 'other' });
    controlled = await env.client.patch<Pod>(PODS, 'default', 'web-0', 'strategic', { status: { podIP: '10.0.0.7', conditions: [{ type: 'Ready', status: 'True' }, { type: SERVICE_READY_GATE, status: 'True' }] } }, { subresource: 'status' });
    const [mutating] = webhookConfigurations(urlClientConfig('https://127.0.0.1:9443'), Buffer.from('ca-1').toString('base64'));
    // A dry run: the configuration as the server defaults it, without sending the pods above to a webhook.
    webhooks = await env.client.create(MUTATING_WEBHOOK_CONFIGURATIONS, mutating as KubeObject, { dryRun: true });
  });

  /** The pod a patch would store, as the API server would show it to admission (a dry run). */
  const patched = (pod: Pod, type: 'merge' | 'strategic', body: unknown, subresource?: string) =>
    env.client.patch<Pod>(PODS, 'default', pod.metadata.name ?? '', type, body, { dryRun: true, ...(subresource && { subresource }) });

  const update = async (before: Pod, after: Pod | Promise<Pod>, subResource?: string, username = PODOPS) =>
    evaluatePolicy(policy, { operation: 'UPDATE', resource: PODS_RESOURCE, ...(subResource && { subResource }), username, object: await after, oldObject: before } satisfies PolicyRequest);

  const allowed = (outcome: { matched: boolean; denials: string[] }) => {
    assert.equal(outcome.matched, true);
    assert.deepEqual(outcome.denials, []);
  };
  const deniedFor = (outcome: { denials: string[] }, message: RegExp) => {
    assert.equal(outcome.denials.length, 1, JSON.stringify(outcome.denials));
    assert.match(outcome.denials[0] ?? '', message);
  };

  test("podops' own writes pass: lifecycle labels, the service-ready condition, rule details, GraceDelete, the delete", async () => {
    const begin = { metadata: { labels: { [idLabelKey('operating', 'upgrade')]: '1', [idLabelKey('operation-type', 'upgrade')]: 'update', 'operation-permission.podopslifecycle.kusionstack.io/update': '1', [SERVICE_AVAILABLE_LABEL]: null } } };
    allowed(await update(controlled, patched(controlled, 'merge', begin)));
    const gate = { metadata: { labels: { [idLabelKey('preparing', 'upgrade')]: '1' } }, status: { conditions: [{ type: SERVICE_READY_GATE, status: 'False', reason: 'ReadinessGateUpdated', message: 'updated by PodOpsLifecycle' }] } };
    allowed(await update(controlled, patched(controlled, 'strategic', gate, 'status'), 'status'));
    allowed(await update(controlled, patched(controlled, 'merge', { metadata: { annotations: { [transitionDetailAnnotation('budget')]: '{"passed":true}', [AVAILABLE_CONDITIONS_ANNOTATION]: '{}' } } })));
    const graceDelete = await patched(controlled, 'merge', { metadata: { labels: { [TO_DELETE_LABEL]: '1' }, annotations: { [GRACE_DELETE_TIMESTAMP_ANNOTATION]: '1' } } });
    allowed(await update(controlled, graceDelete));
    allowed(evaluatePolicy(policy, { operation: 'DELETE', resource: PODS_RESOURCE, username: PODOPS, oldObject: graceDelete }));
    // An eviction lifecycle withdrawn because the eviction it allowed did not come pauses further deferrals.
    allowed(await update(controlled, patched(controlled, 'merge', { metadata: { annotations: { [EVICTION_PAUSED_UNTIL_ANNOTATION]: '1700000000000000000' } } })));
  });

  test('what a stolen token would try on a controlled pod is denied', async () => {
    const image = await patched(controlled, 'strategic', { spec: { containers: [{ name: 'web', image: 'attacker/miner:latest' }] } });
    deniedFor(await update(controlled, image), /may not change a pod's spec/);
    deniedFor(await update(controlled, patched(controlled, 'merge', { metadata: { finalizers: [] } })), /finalizers/);
    deniedFor(await update(controlled, patched(controlled, 'merge', { metadata: { labels: { app: 'payments' } } })), /may only change the PodOpsLifecycle labels/);
    deniedFor(await update(controlled, patched(controlled, 'merge', { metadata: { annotations: { 'sidecar.istio.io/inject': 'false' } } })), /annotations/);
    deniedFor(await update(controlled, patched(controlled, 'strategic', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, 'status'), 'status'), /condition of a pod's status/);
    deniedFor(await update(controlled, patched(controlled, 'merge', { status: { podIP: '10.9.9.9' } }, 'status'), 'status'), /condition of a pod's status/);
    deniedFor(evaluatePolicy(policy, { operation: 'DELETE', resource: PODS_RESOURCE, username: PODOPS, oldObject: controlled }), /may only delete pods labelled collaset\.kusionstack\.io\/to-delete/);
  });

  test('removing the control label, or writing a pod that is not controlled, is denied', async () => {
    deniedFor(await update(controlled, patched(controlled, 'merge', { metadata: { labels: { 'kusionstack.io/control': null } } })), /PodOpsLifecycle labels/);
    const outcome = await update(uncontrolled, patched(uncontrolled, 'merge', { metadata: { labels: { [TO_DELETE_LABEL]: '1' } } }));
    assert.ok(outcome.denials.some((d) => /only write pods labelled kusionstack\.io\/control=true/.test(d)), JSON.stringify(outcome.denials));
    assert.ok(evaluatePolicy(policy, { operation: 'DELETE', resource: PODS_RESOURCE, username: PODOPS, oldObject: uncontrolled }).denials.length > 0);
  });

  test('other users are not concerned', async () => {
    const image = await patched(controlled, 'strategic', { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } });
    assert.deepEqual(await update(controlled, image, undefined, 'system:serviceaccount:kube-system:deployment-controller'), { matched: false, denials: [] });
  });

  test('its webhook configurations: the caBundle may change, nothing else', async () => {
    const resource = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' };
    type Webhook = Record<string, unknown> & { clientConfig: Record<string, unknown> };
    const edit = (change: (webhooks: Webhook[]) => void) => {
      const next = structuredClone(webhooks) as KubeObject & { webhooks: Webhook[] };
      change(next.webhooks);
      return evaluatePolicy(policy, { operation: 'UPDATE', resource, username: PODOPS, object: next, oldObject: webhooks });
    };
    allowed(edit((ws) => ws.forEach((w) => (w.clientConfig.caBundle = Buffer.from('ca-2').toString('base64')))));
    deniedFor(edit((ws) => ((ws[0] as Webhook).failurePolicy = 'Ignore')), /only change the caBundle/);
    deniedFor(edit((ws) => ((ws[0] as Webhook).rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }])), /only change the caBundle/);
    deniedFor(edit((ws) => ((ws[0] as Webhook).objectSelector = {})), /only change the caBundle/);
    deniedFor(edit((ws) => ((ws[1] as Webhook).clientConfig.url = 'https://attacker.example.com/')), /only change the caBundle/);
    deniedFor(edit((ws) => ws.push({ ...(ws[0] as Webhook), name: 'extra.example.com' })), /only change the caBundle/);
  });

  test('workloads, ReplicaSets and Jobs: only what rollout hooks write', async () => {
    const apps = (resource: string) => ({ group: 'apps', version: 'v1', resource });
    const deployment = await env.client.create<KubeObject & { spec: Record<string, unknown> }>(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'held', namespace: 'default', labels: { [RL_WORKLOAD_LABEL]: 'held' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'held' } }, template: { metadata: { labels: { app: 'held' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    });
    const updateOf = (resource: string, before: KubeObject, change: (o: KubeObject & { spec: Record<string, unknown> }) => void) => {
      const after = structuredClone(before) as KubeObject & { spec: Record<string, unknown> };
      change(after);
      return evaluatePolicy(policy, { operation: 'UPDATE', resource: apps(resource), username: PODOPS, object: after, oldObject: before });
    };
    allowed(updateOf('deployments', deployment, (d) => Object.assign(d.spec, { paused: true, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } })));
    allowed(updateOf('deployments', deployment, (d) => (d.metadata.annotations = { [RL_USER_SETTINGS_ANNOTATION]: '{}' })));
    deniedFor(updateOf('deployments', deployment, (d) => ((d.spec.template as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image = 'attacker/miner')), /rollout settings/);
    deniedFor(updateOf('deployments', deployment, (d) => (d.spec.replicas = 50)), /rollout settings/);
    deniedFor(updateOf('deployments', deployment, (d) => (d.metadata.labels = { ...(d.metadata.labels as Record<string, string>), team: 'x' })), /labels and annotations of a workload/);
    const replicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'held-1', namespace: 'default', labels: { app: 'held' } }, spec: { replicas: 2 } } as KubeObject & { spec: Record<string, unknown> };
    allowed(updateOf('replicasets', replicaSet, (rs) => (rs.metadata.labels = { ...(rs.metadata.labels as Record<string, string>), [RL_WORKLOAD_LABEL]: 'held' })));
    deniedFor(updateOf('replicasets', replicaSet, (rs) => (rs.spec.replicas = 9)), /may not change a ReplicaSet's spec/);
    // GraceDelete's nudge of a ReplicaSet refused for its Deployment's surge: that annotation, on ReplicaSets only.
    allowed(updateOf('replicasets', replicaSet, (rs) => (rs.metadata.annotations = { [HELD_POD_DELETED_ANNOTATION]: '1700000000000000000' })));
    deniedFor(updateOf('replicasets', replicaSet, (rs) => (rs.metadata.annotations = { team: 'x' })), /labels and annotations of a workload/);
    deniedFor(updateOf('deployments', deployment, (d) => (d.metadata.annotations = { [HELD_POD_DELETED_ANNOTATION]: '1700000000000000000' })), /labels and annotations of a workload/);

    const jobs = { group: 'batch', version: 'v1', resource: 'jobs' };
    // A hook Job as podops makes it, every label included.
    const job = hookJob({
      namespace: 'default',
      name: 'held-pre-r1',
      rolloutLifecycle: 'held',
      hook: 'pre',
      point: 1,
      workload: { kind: 'Deployment', name: 'held' },
      toRevision: 'held-6d4f9c8b7',
      rollout: 'r1',
      templateHash: '0a1b2c3d4e',
      jobSpec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36' }] } } },
      owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'held-6d4f9c8b7', uid: 'uid-rs' },
      env: { type: 'ROLLOUT', from: 'default/held-5c7b', to: 'default/held-6d4f9c8b7' },
    }) as KubeObject & { spec: Record<string, unknown> };
    allowed(evaluatePolicy(policy, { operation: 'CREATE', resource: jobs, username: PODOPS, object: job }));
    deniedFor(evaluatePolicy(policy, { operation: 'CREATE', resource: jobs, username: PODOPS, object: { ...job, metadata: { name: 'x', namespace: 'default' } } }), /Jobs of rollout hooks/);
    allowed(evaluatePolicy(policy, { operation: 'UPDATE', resource: jobs, username: PODOPS, object: { ...job, spec: { ...job.spec, suspend: true } }, oldObject: job }));
    deniedFor(evaluatePolicy(policy, { operation: 'UPDATE', resource: jobs, username: PODOPS, object: { ...job, spec: { ...job.spec, backoffLimit: 9 } }, oldObject: job }), /only suspend a hook Job/);
    allowed(evaluatePolicy(policy, { operation: 'DELETE', resource: jobs, username: PODOPS, oldObject: job }));
  });

  test("workloads: holds only on podops' labelled ones, never owner references or others' finalizers", async () => {
    const plain = await env.client.create<KubeObject & { spec: Record<string, unknown> }>(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'plain', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'plain' } }, template: { metadata: { labels: { app: 'plain' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    });
    const updateOf = (before: KubeObject, change: (o: KubeObject & { spec: Record<string, unknown> }) => void, resource = 'deployments') => {
      const after = structuredClone(before) as KubeObject & { spec: Record<string, unknown> };
      change(after);
      return evaluatePolicy(policy, { operation: 'UPDATE', resource: { group: 'apps', version: 'v1', resource }, username: PODOPS, object: after, oldObject: before });
    };
    const hold = (d: KubeObject & { spec: Record<string, unknown> }) => (d.spec.paused = true);
    deniedFor(updateOf(plain, hold), /may only hold or release a workload labelled rolloutlifecycle\.kusionstack\.io\/name/);
    deniedFor(updateOf(plain, (d) => (d.spec.strategy = { type: 'Recreate' })), /may only hold or release/);
    // podops' own order: the label first (a write of its own), then the hold; the release before the label goes.
    const labelled = structuredClone(plain);
    labelled.metadata.labels = { [RL_WORKLOAD_LABEL]: 'web' };
    allowed(updateOf(plain, (d) => (d.metadata.labels = { [RL_WORKLOAD_LABEL]: 'web' })));
    allowed(updateOf(labelled, hold));
    const stashed = structuredClone(plain);
    stashed.metadata.annotations = { [RL_USER_SETTINGS_ANNOTATION]: '{}' };
    (stashed.spec as Record<string, unknown>).paused = true;
    allowed(updateOf(stashed, (d) => ((d.spec.paused = false), (d.metadata.annotations = {}))));
    // A dangling owner reference (the garbage collector would delete the workload), a finalizer of someone else's.
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '6c1d1b52-0000-4000-8000-00000000dead' };
    deniedFor(updateOf(labelled, (d) => (d.metadata.ownerReferences = [owner])), /owner references or the finalizers/);
    deniedFor(updateOf(labelled, (d) => (d.metadata.finalizers = ['example.com/block'])), /owner references or the finalizers/);
    const replicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'plain-1', namespace: 'default' }, spec: { replicas: 2 } } as KubeObject;
    deniedFor(updateOf(replicaSet, (rs) => (rs.metadata.ownerReferences = [owner]), 'replicasets'), /owner references or the finalizers/);
  });

  test('evictions: with the pod\'s own grace period only; the webhook configurations: podops\' own by name', async () => {
    const evictions = { group: '', version: 'v1', resource: 'pods' };
    const eviction = (deleteOptions?: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' }, ...(deleteOptions && { deleteOptions }) });
    const evict = (deleteOptions?: Record<string, unknown>) => evaluatePolicy(policy, { operation: 'CREATE', resource: evictions, subResource: 'eviction', username: PODOPS, object: eviction(deleteOptions) });
    allowed(evict());
    allowed(evict({ preconditions: { uid: 'u' }, dryRun: ['All'] }));
    deniedFor(evict({ gracePeriodSeconds: 0 }), /own grace period/);
    deniedFor(evict({ propagationPolicy: 'Orphan' }), /own grace period/);
    const resource = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' };
    const other = { ...structuredClone(webhooks), metadata: { ...webhooks.metadata, name: 'someone-elses' } };
    const next = structuredClone(other) as KubeObject & { webhooks: { clientConfig: Record<string, unknown> }[] };
    next.webhooks.forEach((w) => (w.clientConfig.caBundle = Buffer.from('attacker-ca').toString('base64')));
    deniedFor(evaluatePolicy(policy, { operation: 'UPDATE', resource, username: PODOPS, object: next, oldObject: other }), /only change its own webhook configurations/);
  });

  test("PodTransitionRules and RolloutLifecycles: podops' finalizer comes and goes, the spec never changes", () => {
    const resource = { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules' };
    const rule = { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: 'budget', namespace: 'default' }, spec: { selector: {}, rules: [{ name: 'b', availablePolicy: { maxUnavailableValue: 1 } }] } };
    const update = (change: (r: typeof rule & { metadata: Record<string, unknown> }) => void) => {
      const after = structuredClone(rule) as typeof rule & { metadata: Record<string, unknown> };
      change(after);
      return evaluatePolicy(policy, { operation: 'UPDATE', resource, username: PODOPS, object: after, oldObject: rule });
    };
    allowed(update((r) => (r.metadata.finalizers = [TRANSITION_RULE_FINALIZER])));
    deniedFor(update((r) => (r.spec.rules = [])), /may not change the spec/);
    deniedFor(update((r) => (r.metadata.finalizers = ['example.com/keep'])), /owner references or the finalizers/);
  });
});
