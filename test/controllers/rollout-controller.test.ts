// The RolloutLifecycle controller against the sandbox (CRD installed, kube-controller-manager's controllers and a
// node simulated, so hook Jobs really run), over HTTP, with a real event recorder and without podops' webhooks:
// the test writes a held template change as the workload webhook would (src/rollout/admission.ts), and a second
// RolloutLifecycle for a workload as two simultaneous creates can make past the validating webhook.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { rfc3339 } from '../../src/api/kube.ts';
import { RL_FINALIZER, RL_WORKLOAD_LABEL, rolloutLifecycleCRD, type LifecycleHook, type RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import { rolloutController, rolloutInformers } from '../../src/controllers/rollout-controller.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, DEPLOYMENTS, EVENTS, NAMESPACES, ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import { admitWorkloadUpdate } from '../../src/rollout/admission.ts';
import type { JsonObject, Workload } from '../../src/rollout/workload.ts';
import { listRevisions } from '../../src/webhook/rollout.ts';
import { until } from '../support/wait.ts';

type EventObject = KubeObject & { type: string; reason: string; message: string; involvedObject: { kind?: string; name?: string } };

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
const hook = (name: string, script: string): LifecycleHook => ({
  name,
  trigger: { progressAvailableParams: { progressPoint: 0 } },
  failurePolicy: 'Abort',
  jobSpec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name, image: 'busybox:1.36', command: ['sh', '-c', script] }] } } },
});

describe('RolloutLifecycle controller', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const stop = new AbortController();

  before(async () => {
    sandbox = await startSandbox({ simulation: { nodes: 1, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0 }, jobs: { syncBatchPeriodMs: 0 } } });
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, rolloutLifecycleCRD() as KubeObject);
    await until(() => client.list(ROLLOUTLIFECYCLES, { namespace: 'default' }).then(() => true, () => false), Boolean, 'the CRD served');
    // As the operator wires it: the labelled workloads, Jobs and ReplicaSets only.
    const caches = rolloutInformers(client);
    for (const informer of [caches.rolloutLifecycles, ...Object.values(caches.workloads), caches.jobs, caches.replicaSets]) void informer.run(stop.signal);
    const events = new EventRecorder({ client, component: 'podops' });
    void rolloutController({ client, ...caches, events }).run(stop.signal);
  });
  after(async () => {
    stop.abort();
    client.close();
    await sandbox.stop();
  });

  /** A namespace with a Deployment `web` of one pod and its RolloutLifecycle `web`, labelled by the controller. */
  async function hookedDeployment(namespace: string, hooks: LifecycleHook[]): Promise<void> {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await client.create(DEPLOYMENTS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') } });
    await createRolloutLifecycle(namespace, 'web', hooks);
    await until(() => client.get<Workload>(DEPLOYMENTS, namespace, 'web'), (d) => d.metadata.labels?.[RL_WORKLOAD_LABEL] === 'web' && d.status?.availableReplicas === 1, 'the Deployment labelled and available');
  }

  const createRolloutLifecycle = (namespace: string, name: string, hooks: LifecycleHook[]) =>
    client.create(ROLLOUTLIFECYCLES, { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'RolloutLifecycle', metadata: { name, namespace }, spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks } });
  const rolloutLifecycle = (namespace: string, name: string) => client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, namespace, name);

  /** The template change, held in the same write as podops' workload webhook holds it. */
  async function heldTemplateChange(namespace: string, image: string): Promise<void> {
    const oldObject = await client.get<Workload>(DEPLOYMENTS, namespace, 'web');
    const object: Workload = { ...structuredClone(oldObject), spec: { ...oldObject.spec, template: template(image) as JsonObject } };
    const revisions = await listRevisions(client, 'Deployment', oldObject);
    const hold = admitWorkloadUpdate({ kind: 'Deployment', oldObject, object, byPodops: false, hooked: true, revisions, now: rfc3339(new Date()), rolloutId: 'r1' });
    await client.patch(DEPLOYMENTS, namespace, 'web', 'json', [
      { op: 'test', path: '/metadata/resourceVersion', value: oldObject.metadata.resourceVersion },
      { op: 'replace', path: '/spec/template', value: object.spec?.template },
      ...hold,
    ]);
  }

  const eventsAbout = async (namespace: string, kind: string, name: string): Promise<EventObject[]> =>
    (await client.list<EventObject>(EVENTS, { namespace })).items.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);

  test('a hook that fails with Abort: a Warning HookFailed event on the workload and on the RolloutLifecycle, both naming the hook and its Job', async () => {
    await hookedDeployment('failing', [hook('migrate', 'echo broken; exit 3')]);
    await heldTemplateChange('failing', 'nginx:1.28');
    const failed = await until(() => rolloutLifecycle('failing', 'web'), (r) => r.status?.rollout?.phase === 'Failed', 'the rollout Failed');
    const job = failed.status?.hooks?.find((h) => h.name === 'migrate')?.job;
    for (const kind of ['Deployment', 'RolloutLifecycle']) {
      const events = await until(() => eventsAbout('failing', kind, 'web'), (all) => all.some((e) => e.reason === 'HookFailed'), `a HookFailed event on the ${kind}`);
      const hookFailed = events.filter((e) => e.reason === 'HookFailed');
      assert.equal(hookFailed.length, 1, `one HookFailed event on the ${kind}`);
      assert.equal(hookFailed[0]?.type, 'Warning');
      assert.match(hookFailed[0]?.message ?? '', new RegExp(`^hook migrate \\(Job ${job}\\) failed: BackoffLimitExceeded.*; failurePolicy Abort: the rollout is held$`));
    }
    assert.equal((await client.get<Workload>(DEPLOYMENTS, 'failing', 'web')).spec?.paused, true, 'held');
  });

  test('a second RolloutLifecycle for a claimed workload does nothing but say so; it takes over once the first is gone', async () => {
    await hookedDeployment('claimed', [hook('migrate', 'exit 0')]);
    // Both pass the validating webhook when created at once; here there is none.
    await createRolloutLifecycle('claimed', 'web-2', [hook('other', 'exit 0')]);
    const refused = await until(
      () => rolloutLifecycle('claimed', 'web-2'),
      (r) => r.status?.conditions?.some((c) => c.reason === 'TargetClaimed') === true,
      'the second RolloutLifecycle refused',
    );
    assert.deepEqual(
      refused.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['Progressing', 'False', 'TargetClaimed', 'Deployment/web is claimed by RolloutLifecycle web, the oldest that targets it (at most one per workload): this one does nothing while web exists']],
    );
    assert.equal(refused.status?.target, 'Deployment/web');
    assert.deepEqual(refused.metadata.finalizers ?? [], [], 'no finalizer: its deletion has nothing to release');
    const warnings = await until(() => eventsAbout('claimed', 'RolloutLifecycle', 'web-2'), (all) => all.some((e) => e.reason === 'TargetClaimed'), 'a TargetClaimed event');
    assert.deepEqual(warnings.map((e) => [e.type, e.reason]), [['Warning', 'TargetClaimed']]);
    assert.equal((await client.get<Workload>(DEPLOYMENTS, 'claimed', 'web')).metadata.labels?.[RL_WORKLOAD_LABEL], 'web', 'the workload stays with the first');
    assert.ok((await rolloutLifecycle('claimed', 'web')).metadata.finalizers?.includes(RL_FINALIZER));

    await client.delete(ROLLOUTLIFECYCLES, 'claimed', 'web');
    await until(() => client.get<Workload>(DEPLOYMENTS, 'claimed', 'web'), (d) => d.metadata.labels?.[RL_WORKLOAD_LABEL] === 'web-2', 'the second to claim the workload');
    const claimed = await until(() => rolloutLifecycle('claimed', 'web-2'), (r) => r.status?.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NoRollout', 'the second to act');
    assert.ok(claimed.metadata.finalizers?.includes(RL_FINALIZER));
  });
});
