// The workload webhook while podops starts, or runs without the RolloutLifecycle CRD: a labelled workload's
// template change is never let through un-held on the strength of a cache that has not synced.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL, rolloutLifecycleCRD, type RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { Informer } from '../../src/kube/informer.ts';
import { silentLogger } from '../../src/kube/log.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import type { Workload } from '../../src/rollout/workload.ts';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import type { AdmissionRequest } from '../../src/webhook/admission.ts';
import { admitWorkload, validateRolloutLifecycleRequest } from '../../src/webhook/rollout.ts';
import { until } from '../support/wait.ts';

const deployment = (image: string, labels: Record<string, string> = { [RL_WORKLOAD_LABEL]: 'web' }): Workload => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web', labels },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate' }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
});

const update = (oldObject: Workload, object: Workload): AdmissionRequest => ({
  uid: 'review-1',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name: 'web',
  namespace: 'default',
  operation: 'UPDATE',
  object,
  oldObject,
});

const rolloutLifecycle: RolloutLifecycle = {
  apiVersion: 'apps.kusionstack.io/v1alpha1',
  kind: 'RolloutLifecycle',
  metadata: { name: 'web', namespace: 'default' },
  spec: { targetRef: { kind: 'Deployment', name: 'web' }, hooks: [{ name: 'smoke', trigger: { progressAvailableParams: { progressPoint: 1 } }, jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'busybox' }] } } } }] },
};

describe('the workload webhook before its RolloutLifecycle cache synced', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let rolloutLifecycles: Informer<RolloutLifecycle>;
  const stop = new AbortController();
  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    rolloutLifecycles = new Informer<RolloutLifecycle>({ client, type: ROLLOUTLIFECYCLES, logger: silentLogger() });
    void rolloutLifecycles.run(stop.signal);
  });
  after(async () => {
    stop.abort();
    client.close();
    await sandbox.stop();
  });

  test('no CRD yet: a labelled template change is refused with 503 (the writer retries); anything else passes at once', async () => {
    const options = { client, rolloutLifecycles, now: () => new Date() };
    const refused = await admitWorkload(update(deployment('app:1'), deployment('app:2')), options);
    assert.equal(refused.allowed, false);
    assert.equal(!refused.allowed && refused.status.code, 503);
    assert.match(!refused.allowed ? refused.status.message : '', /RolloutLifecycle cache is not synced yet; retry the update of Deployment web/);

    const started = Date.now();
    assert.deepEqual(await admitWorkload(update(deployment('app:1'), { ...deployment('app:1'), spec: { ...deployment('app:1').spec, replicas: 5 } }), options), { allowed: true });
    assert.ok(Date.now() - started < 1000, 'a write that is not a template change does not wait for the cache');
    const create = { ...update(deployment('app:1'), deployment('app:1')), operation: 'CREATE' as const, object: rolloutLifecycle, kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'RolloutLifecycle' } };
    const rl = await validateRolloutLifecycleRequest(create, options);
    assert.equal(!rl.allowed && rl.status.code, 503, 'one RolloutLifecycle per workload cannot be checked yet');
  });

  test('once the CRD is installed and the cache synced, the same change is held in the write', async () => {
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, rolloutLifecycleCRD() as KubeObject);
    await until(() => client.list(ROLLOUTLIFECYCLES, { namespace: 'default' }).then(() => true, () => false), Boolean, 'the CRD served');
    await client.create(ROLLOUTLIFECYCLES, rolloutLifecycle as KubeObject);
    await until(async () => rolloutLifecycles.get('default', 'web'), Boolean, 'the RolloutLifecycle cached', 60_000);
    const verdict = await admitWorkload(update(deployment('app:1'), deployment('app:2')), { client, rolloutLifecycles, now: () => new Date() });
    assert.equal(verdict.allowed, true);
    const patch = verdict.allowed ? (verdict.patch ?? []) : [];
    const annotations = patch.find((op) => op.path === '/metadata/annotations') as { value?: Record<string, string> } | undefined;
    assert.ok(annotations?.value?.[RL_USER_SETTINGS_ANNOTATION], `the user's settings stashed: ${JSON.stringify(patch)}`);
    assert.deepEqual(patch.find((op) => op.path === '/spec/paused'), { op: 'add', path: '/spec/paused', value: true });
  });

  test('a second RolloutLifecycle for a workload is refused on create; two that exist (created at once) stay writable', async () => {
    const options = { client, rolloutLifecycles, now: () => new Date() };
    const request = (operation: 'CREATE' | 'UPDATE', object: RolloutLifecycle): AdmissionRequest => ({
      ...update(deployment('app:1'), deployment('app:1')),
      operation,
      object,
      ...(operation === 'UPDATE' && { oldObject: object }),
      kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'RolloutLifecycle' },
    });
    const second = { ...rolloutLifecycle, metadata: { ...rolloutLifecycle.metadata, name: 'web-2' }, spec: { ...rolloutLifecycle.spec, hooks: [] } } as RolloutLifecycle;
    const refused = await validateRolloutLifecycleRequest(request('CREATE', second), options);
    assert.match(!refused.allowed ? refused.status.message : '', /RolloutLifecycle web already targets it \(at most one per workload\)/);
    // As after two creates the cache could not tell apart: the controller lets the older act, and both must be updatable.
    await client.create(ROLLOUTLIFECYCLES, second as KubeObject);
    await until(async () => rolloutLifecycles.get('default', 'web-2'), Boolean, 'the second RolloutLifecycle cached');
    const finalizer = { ...rolloutLifecycle, metadata: { ...rolloutLifecycle.metadata, finalizers: ['rolloutlifecycle.kusionstack.io/release'] } };
    assert.equal((await validateRolloutLifecycleRequest(request('UPDATE', finalizer), options)).allowed, true);
    assert.equal((await validateRolloutLifecycleRequest(request('UPDATE', second), options)).allowed, true);
  });
});
