// The ValidatingAdmissionPolicy shipped for podops' ServiceAccount must never refuse what podops really
// does. The sandbox does not evaluate admission policies, so a validating webhook of the test stands in for the
// policy: it evaluates it, with a conformant CEL engine, on every write podops makes (as its ServiceAccount), and
// refuses the write if the policy would. (On a real control plane the e2e suites run under the policy itself.) Rollouts,
// graceful deletes, graceful evictions and PodTransitionRules then run to the end.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { ApiError, type KubeObject } from '../../src/kube/client.ts';
import { TO_EVICT_LABEL } from '../../src/api/protocol.ts';
import { DEPLOYMENTS, NODES, PODS, PODTRANSITIONRULES, ROLLOUTLIFECYCLES, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { admissionPolicy } from '../../src/operator/admission-policy.ts';
import { allowed, denied } from '../../src/webhook/admission.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { evaluatePolicy } from '../support/admission-policy.ts';
import { localCertificates } from '../support/tls.ts';
import { isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { until } from '../support/wait.ts';

const PODOPS = 'system:serviceaccount:podops-system:podops';
const [policy] = admissionPolicy('podops-system', 'podops', {}) as unknown as [Parameters<typeof evaluatePolicy>[0]];

describe("the admission policy against podops' real writes", () => {
  let cluster: Cluster;
  let server: WebhookServer;
  const evaluated: string[] = [];
  const refusals: string[] = [];

  before(async () => {
    cluster = await startCluster();
    const certs = await localCertificates();
    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certificate: certs.serving,
      routes: [
        {
          path: '/policy',
          handle(request) {
            // The operator acts as its ServiceAccount (test/e2e/harness.ts), which the review names.
            if (request.userInfo?.username !== PODOPS) return allowed();
            const outcome = evaluatePolicy(policy, { operation: request.operation as 'CREATE' | 'UPDATE' | 'DELETE', resource: request.resource, ...(request.subResource && { subResource: request.subResource }), username: PODOPS, object: request.object, oldObject: request.oldObject });
            const what = `${request.operation} ${request.resource.resource}${request.subResource ? `/${request.subResource}` : ''}`;
            evaluated.push(what);
            if (outcome.denials.length === 0) return allowed();
            refusals.push(`${what} ${request.namespace}/${request.name}: ${outcome.denials.join('; ')}`);
            return denied(outcome.denials.join('; '));
          },
        },
      ],
    });
    const address = await server.listen();
    await cluster.client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'podops-policy-check' },
      webhooks: [
        {
          name: 'policy.podops.test',
          clientConfig: { url: `https://${address}/policy`, caBundle: Buffer.from(certs.ca.cert).toString('base64') },
          rules: [
            { operations: ['UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'] },
            { operations: ['UPDATE'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['v1'], resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'] },
            { operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'] },
            { operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['batch'], apiVersions: ['v1'], resources: ['jobs'] },
            { operations: ['UPDATE'], apiGroups: ['apps.kusionstack.io'], apiVersions: ['v1alpha1'], resources: ['podtransitionrules', 'rolloutlifecycles'] },
          ],
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    } as KubeObject);
    await serviceNamespace(cluster, 'policy');
  });
  after(async () => {
    await cluster.stop();
    await server.close();
  });

  test('a rollout under a PodTransitionRule, a graceful delete and a graceful eviction complete, and the policy refused none of podops\' writes', async () => {
    const { client } = cluster;
    await client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'one-at-a-time', namespace: 'policy' },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'budget', availablePolicy: { maxUnavailableValue: 1 } }] },
    });
    const template = (image: string) => ({ metadata: { labels: { app: 'web', 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'web', image }] } });
    // Rollout hooks too: the Deployment held and stepped, its ReplicaSets labelled, hook Jobs created and pruned.
    const hookJob = { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36', command: ['sh', '-c', 'exit 0'] }] } } };
    await client.create(ROLLOUTLIFECYCLES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'RolloutLifecycle',
      metadata: { name: 'web', namespace: 'policy' },
      spec: {
        targetRef: { kind: 'Deployment', name: 'web' },
        hooks: [
          { name: 'pre', trigger: { progressAvailableParams: { progressPoint: 0 } }, retainPolicy: 'Never', jobSpec: hookJob },
          { name: 'mid', trigger: { progressAvailableParams: { progressPoint: '50%' } }, jobSpec: hookJob },
        ],
      },
    });
    await client.create(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'policy' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') },
    });
    const pods = async (): Promise<Pod[]> => (await client.list<Pod>(PODS, { namespace: 'policy', labelSelector: 'app=web' })).items;
    const settled = (image: string) => (list: Pod[]) => list.length === 3 && list.every((p) => isServiceAvailable(p) && (p.spec?.containers as { image?: string }[] | undefined)?.[0]?.image === image && !p.metadata.deletionTimestamp);
    await until(pods, settled('nginx:1.27'), 'three service-available pods', 30_000);

    // The user's write: the operator in this process shares the client, and its field manager.
    await client.patch(DEPLOYMENTS, 'policy', 'web', 'merge', { spec: { template: template('nginx:1.28') } }, { fieldManager: 'kubectl' });
    await until(pods, settled('nginx:1.28'), 'the rollout to finish', 60_000);

    const [victim] = await pods();
    await assert.rejects(client.delete(PODS, 'policy', victim?.metadata.name ?? ''), /pod deletion process is underway/);
    await until(pods, (list) => !list.some((p) => p.metadata.uid === victim?.metadata.uid) && settled('nginx:1.28')(list), 'the graceful delete and its replacement', 60_000);

    // A graceful eviction: the pod's node is cordoned, as kubectl drain does, and the eviction is retried until
    // podops lets it through; podops' marks on the pod go through the policy too.
    const [evicted] = await pods();
    const nodeName = evicted?.spec?.nodeName as string;
    await client.patch(NODES, undefined, nodeName, 'merge', { spec: { unschedulable: true } });
    const evict = () => client.evict('policy', evicted?.metadata.name ?? '').then(() => true, (err: unknown) => (err instanceof ApiError && err.code === 429 ? false : Promise.reject(err)));
    await until(evict, Boolean, 'the eviction to go through', 60_000);
    assert.notEqual((await client.get<Pod>(PODS, 'policy', evicted?.metadata.name ?? '')).metadata.labels?.[TO_EVICT_LABEL], undefined, 'podops marked the pod');
    await client.patch(NODES, undefined, nodeName, 'merge', { spec: { unschedulable: null } });
    await until(pods, (list) => !list.some((p) => p.metadata.uid === evicted?.metadata.uid) && settled('nginx:1.28')(list), 'the eviction and its replacement', 60_000);

    // The rules go, and with them podops' finalizers and its release of the workload.
    await client.delete(ROLLOUTLIFECYCLES, 'policy', 'web');
    await client.delete(PODTRANSITIONRULES, 'policy', 'one-at-a-time');
    const gone = (type: typeof ROLLOUTLIFECYCLES, name: string) => () => client.get(type, 'policy', name).then(() => false, () => true);
    await until(gone(ROLLOUTLIFECYCLES, 'web'), Boolean, 'the RolloutLifecycle to be finalized', 30_000);
    await until(gone(PODTRANSITIONRULES, 'one-at-a-time'), Boolean, 'the PodTransitionRule to be finalized', 30_000);

    assert.deepEqual(refusals, []);
    for (const kind of ['UPDATE pods', 'UPDATE pods/status', 'DELETE pods', 'UPDATE deployments', 'UPDATE replicasets', 'CREATE jobs', 'DELETE jobs', 'UPDATE podtransitionrules', 'UPDATE rolloutlifecycles']) assert.ok(evaluated.includes(kind), `podops made ${kind} writes that the policy judged (saw ${[...new Set(evaluated)].join(', ')})`);
  });
});
