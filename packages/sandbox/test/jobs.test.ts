// The Job and TTL-after-finished controllers (kube-controller-manager's, in the sandbox) on simulated
// nodes, with the kubelet's container convention deciding how pods end (`sh -c "exit N"`, `sleep S`):
// success with completions and parallelism, failure past backoffLimit, activeDeadlineSeconds,
// ttlSecondsAfterFinished, suspend and resume, Indexed completion, the tracking finalizer, events;
// deletion with its pods, and garbage collection of Jobs owned by ReplicaSets and ControllerRevisions
// (deleted, or pruned by revisionHistoryLimit). The controller's 1 s batching and 10 s pod-failure
// back-off are shortened through the options.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';
import { getJson, type Json } from './workloads.ts';

let h: Harness;
const ns = 'jobs';
const merge = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  h = await startHarness({
    simulation: { nodes: 2, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 }, jobs: { syncBatchPeriodMs: 10, podFailureBackoffMs: 20 } },
  });
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
after(() => h.stop());

const job = (name: string, script: string, spec: Json = {}): Json => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script] }] } } },
});

const jobPath = (name = ''): string => `/apis/batch/v1/namespaces/${ns}/jobs${name ? `/${name}` : ''}`;

async function create(body: Json): Promise<Json> {
  const res = await h.http('POST', jobPath(), body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}

const podsOf = async (name: string): Promise<Json[]> => (await getJson(h, `/api/v1/namespaces/${ns}/pods?labelSelector=batch.kubernetes.io%2Fjob-name%3D${name}`)).items;
const eventsOf = async (name: string): Promise<string[]> =>
  (await getJson(h, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).items.map((e: Json) => `${e.type} ${e.reason} ${e.message}`);

/** Waits for a True condition of this type and answers the Job. */
const finished = (name: string, type: string, timeoutMs?: number): Promise<Json> =>
  eventually(async () => {
    const found = await getJson(h, jobPath(name));
    return found.status?.conditions?.some((c: Json) => c.type === type && c.status === 'True') ? found : undefined;
  }, timeoutMs);

/** Conditions without their timestamps. */
const conditions = (found: Json): Json[] => found.status.conditions.map(({ type, status, reason, message }: Json) => ({ type, status, reason, message }));

test('success: completions 3 with parallelism 2; SuccessCriteriaMet then Complete; counters, times and events as v1.32 writes them', async () => {
  await create(job('ok', 'exit 0', { completions: 3, parallelism: 2 }));
  const done = await finished('ok', 'Complete');
  const reached = { status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
  assert.deepEqual(conditions(done), [
    { type: 'SuccessCriteriaMet', ...reached },
    { type: 'Complete', ...reached },
  ]);
  const status = { ...done.status };
  assert.ok(Date.parse(status.startTime) <= Date.parse(status.completionTime));
  // The completion time is taken when the Job is found complete, and the Complete condition is stored with the
  // clock read again once its pods are counted, as kube-controller-manager does: the same second on an idle
  // machine, the next one on a loaded one.
  assert.ok(Date.parse(status.completionTime) <= Date.parse(done.status.conditions[1].lastTransitionTime));
  delete status.conditions;
  delete status.startTime;
  delete status.completionTime;
  assert.deepEqual(status, { succeeded: 3, terminating: 0, uncountedTerminatedPods: {}, ready: 0 });
  const pods = await podsOf('ok');
  assert.equal(pods.length, 3);
  for (const pod of pods) {
    assert.equal(pod.status.phase, 'Succeeded');
    assert.deepEqual(pod.metadata.finalizers ?? [], [], 'the tracking finalizer is removed once counted');
    assert.equal(pod.metadata.generateName, 'ok-');
  }
  const events = await eventsOf('ok');
  assert.deepEqual(events.filter((e) => e.includes('SuccessfulCreate')).sort(), pods.map((p) => `Normal SuccessfulCreate Created pod: ${p.metadata.name}`).sort());
  assert.ok(events.includes('Normal Completed Job completed'), events.join('\n'));
});

test('running pods carry the job-tracking finalizer, the job labels and the controller reference; status counts them', async () => {
  const created = await create(job('runner', 'sleep 30', { parallelism: 2, completions: 2 }));
  const pods = await eventually(async () => {
    const found = await podsOf('runner');
    return found.length === 2 && found.every((p) => p.status.phase === 'Running') ? found : undefined;
  });
  for (const pod of pods) {
    assert.deepEqual(pod.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.equal(pod.metadata.labels['batch.kubernetes.io/job-name'], 'runner');
    assert.equal(pod.metadata.labels['batch.kubernetes.io/controller-uid'], created.metadata.uid);
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'runner', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  }
  const status = await eventually(async () => {
    const s = (await getJson(h, jobPath('runner'))).status;
    return s.active === 2 && s.ready === 2 ? s : undefined;
  });
  assert.deepEqual(Object.keys(status), ['startTime', 'active', 'terminating', 'uncountedTerminatedPods', 'ready']);
  await h.http('DELETE', jobPath('runner'), { propagationPolicy: 'Background' });
});

test('failure: every failed pod counts, and past backoffLimit the Job gets FailureTarget, then Failed', async () => {
  await create(job('bad', 'exit 3', { backoffLimit: 2 }));
  const failed = await finished('bad', 'Failed');
  const exceeded = { status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  assert.deepEqual(conditions(failed), [
    { type: 'FailureTarget', ...exceeded },
    { type: 'Failed', ...exceeded },
  ]);
  assert.equal(failed.status.failed, 3);
  assert.equal(failed.status.completionTime, undefined);
  assert.equal(failed.status.active, undefined);
  const pods = await podsOf('bad');
  assert.equal(pods.length, 3, 'one pod and two retries');
  assert.ok(pods.every((p) => p.status.phase === 'Failed' && !(p.metadata.finalizers ?? []).length));
  assert.ok((await eventsOf('bad')).includes('Warning BackoffLimitExceeded Job has reached the specified backoff limit'));
});

test('backoffLimit 0: the first failed pod fails the Job, FailureTarget before Failed', async () => {
  await create(job('once', 'exit 1', { backoffLimit: 0 }));
  const failed = await finished('once', 'Failed');
  const exceeded = { status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  assert.deepEqual(conditions(failed), [
    { type: 'FailureTarget', ...exceeded },
    { type: 'Failed', ...exceeded },
  ]);
  assert.equal(failed.status.failed, 1);
  assert.equal((await podsOf('once')).length, 1, 'no retry');
});

test('activeDeadlineSeconds: the running pod is deleted and the Job fails with DeadlineExceeded', async () => {
  await create(job('slow', 'sleep 60', { activeDeadlineSeconds: 1 }));
  const failed = await finished('slow', 'Failed');
  const exceeded = { status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  assert.deepEqual(conditions(failed), [
    { type: 'FailureTarget', ...exceeded },
    { type: 'Failed', ...exceeded },
  ]);
  assert.equal(failed.status.failed, 1);
  const events = await eventsOf('slow');
  assert.ok(events.some((e) => e.startsWith('Normal SuccessfulDelete Deleted pod: slow-')), events.join('\n'));
  assert.ok(events.includes('Warning DeadlineExceeded Job was active longer than specified deadline'));
  await eventually(async () => ((await podsOf('slow')).length === 0 ? true : undefined));
});

test('ttlSecondsAfterFinished: a finished Job is deleted, its pods with it', async () => {
  await create(job('short', 'exit 0', { ttlSecondsAfterFinished: 0 }));
  await eventually(async () => ((await h.http('GET', jobPath('short'))).status === 404 ? true : undefined));
  await eventually(async () => ((await podsOf('short')).length === 0 ? true : undefined));
});

test('suspend: no pods while suspended (Suspended=True), pods once resumed (Suspended=False, JobResumed)', async () => {
  await create(job('later', 'exit 0', { suspend: true }));
  const suspended = await finished('later', 'Suspended');
  assert.deepEqual(conditions(suspended), [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }]);
  assert.equal(suspended.status.startTime, undefined);
  assert.equal((await podsOf('later')).length, 0);
  await h.http('PATCH', jobPath('later'), { spec: { suspend: false } }, merge);
  const done = await finished('later', 'Complete');
  assert.deepEqual(conditions(done)[0], { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' });
  const events = await eventsOf('later');
  assert.ok(events.includes('Normal Suspended Job suspended') && events.includes('Normal Resumed Job resumed'), events.join('\n'));
});

test('Indexed: one pod per index with its annotation, label, hostname and env; completedIndexes', async () => {
  await create(job('indexed', 'exit 0', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
  const done = await finished('indexed', 'Complete');
  assert.equal(done.status.completedIndexes, '0-2');
  assert.equal(done.status.succeeded, 3);
  const pods = (await podsOf('indexed')).sort((a, b) => a.metadata.annotations['batch.kubernetes.io/job-completion-index'] - b.metadata.annotations['batch.kubernetes.io/job-completion-index']);
  pods.forEach((pod, index) => {
    assert.equal(pod.metadata.annotations['batch.kubernetes.io/job-completion-index'], String(index));
    assert.equal(pod.metadata.labels['batch.kubernetes.io/job-completion-index'], String(index));
    assert.equal(pod.metadata.generateName, `indexed-${index}-`);
    assert.equal(pod.spec.hostname, `indexed-${index}`);
    assert.deepEqual(pod.spec.containers[0].env, [
      { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } } },
    ]);
  });
});

test('a success policy: the first rule met completes an Indexed Job with reason SuccessPolicy', async () => {
  await create(job('policy-met', 'exit 0', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededCount: 1 }] } }));
  const done = await finished('policy-met', 'Complete');
  const matched = { status: 'True', reason: 'SuccessPolicy', message: 'Matched rules at index 0' };
  assert.deepEqual(conditions(done), [
    { type: 'SuccessCriteriaMet', ...matched },
    { type: 'Complete', ...matched },
  ]);
});

test('a pod failure policy: an Ignore rule does not count the failure, the pod is replaced', async () => {
  const policy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [5] } }] };
  await create(job('ignored', 'exit 5', { backoffLimit: 0, podFailurePolicy: policy }));
  await eventually(async () => ((await podsOf('ignored')).filter((p) => p.status.phase === 'Failed').length >= 3 ? true : undefined));
  const found = await getJson(h, jobPath('ignored'));
  assert.equal(found.status.failed, undefined, 'ignored failures are not counted');
  assert.ok(!found.status.conditions?.some((c: Json) => c.type === 'Failed'));
  await h.http('DELETE', jobPath('ignored'), { propagationPolicy: 'Background' });
});

test('a pod failure policy: a FailJob rule fails the Job at once, with its message', async () => {
  const policy = { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } }] };
  await create(job('policy', 'exit 42', { backoffLimit: 6, podFailurePolicy: policy }));
  const failed = await finished('policy', 'Failed');
  const [pod] = await podsOf('policy');
  const message = `Container c for pod ${ns}/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`;
  assert.deepEqual(conditions(failed), [
    { type: 'FailureTarget', status: 'True', reason: 'PodFailurePolicy', message },
    { type: 'Failed', status: 'True', reason: 'PodFailurePolicy', message },
  ]);
});

for (const propagationPolicy of ['Background', 'Foreground']) {
  test(`deleting a running Job with propagationPolicy ${propagationPolicy} deletes its pods (their tracking finalizer removed)`, async () => {
    const name = `del-${propagationPolicy.toLowerCase()}`;
    await create(job(name, 'sleep 30', { parallelism: 2, completions: 2 }));
    await eventually(async () => {
      const pods = await podsOf(name);
      return pods.length === 2 && pods.every((p) => p.status.phase === 'Running') ? true : undefined;
    });
    assert.equal((await h.http('DELETE', jobPath(name), { propagationPolicy })).status, 200);
    await eventually(async () => ((await h.http('GET', jobPath(name))).status === 404 && (await podsOf(name)).length === 0 ? true : undefined));
  });
}

describe('Jobs owned by a ReplicaSet or a ControllerRevision (as podops runs hooks at a rollout point)', () => {
  const owned = (name: string, owner: Json, kind: string): Json => {
    const body = job(name, 'sleep 30');
    body.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind, name: owner.metadata.name, uid: owner.metadata.uid }];
    return body;
  };
  const gone = (name: string): Promise<true> =>
    eventually(async () => ((await h.http('GET', jobPath(name))).status === 404 && (await podsOf(name)).length === 0 ? true : undefined));
  const createReplicaSet = async (name: string): Promise<Json> => {
    const created = await h.http('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name },
      spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };
  const running = (name: string): Promise<true> => eventually(async () => ((await podsOf(name)).some((p) => p.status.phase === 'Running') ? true : undefined));

  test('deleting the owning ReplicaSet collects the Job and its pods', async () => {
    const rs = await createReplicaSet('owner');
    await create(owned('hook-rs', rs, 'ReplicaSet'));
    await running('hook-rs');
    await h.http('DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets/owner`);
    await gone('hook-rs');
  });

  test('a reference is checked where it points: the right uid under another name is a missing owner', async () => {
    const rs = await createReplicaSet('named');
    await create(owned('hook-misnamed', { metadata: { name: 'elsewhere', uid: rs.metadata.uid } }, 'ReplicaSet'));
    await gone('hook-misnamed');
  });

  test('a ReplicaSet pruned by the Deployment\'s revisionHistoryLimit takes its Job with it', async () => {
    const body = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'pruned' },
      spec: { replicas: 0, revisionHistoryLimit: 0, selector: { matchLabels: { app: 'pruned' } }, template: { metadata: { labels: { app: 'pruned' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
    };
    assert.equal((await h.http('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, body)).status, 201);
    const [first] = await eventually(async () => {
      const sets = (await getJson(h, `/apis/apps/v1/namespaces/${ns}/replicasets?labelSelector=app%3Dpruned`)).items;
      return sets.length === 1 ? sets : undefined;
    });
    await create(owned('hook-rev1', first, 'ReplicaSet'));
    await running('hook-rev1');
    await h.http('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/pruned`, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, merge);
    await eventually(async () => ((await h.http('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/${first.metadata.name}`)).status === 404 ? true : undefined));
    await gone('hook-rev1');
  });

  test('a ControllerRevision pruned by the StatefulSet\'s revisionHistoryLimit takes its Job with it', async () => {
    const body = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'pruned' },
      spec: { replicas: 0, serviceName: 'pruned', revisionHistoryLimit: 0, selector: { matchLabels: { app: 'pruned-sts' } }, template: { metadata: { labels: { app: 'pruned-sts' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
    };
    assert.equal((await h.http('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, body)).status, 201);
    const revisions = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
    const [first] = await eventually(async () => {
      const found = (await getJson(h, `${revisions}?labelSelector=app%3Dpruned-sts`)).items;
      return found.length === 1 ? found : undefined;
    });
    await create(owned('hook-cr', first, 'ControllerRevision'));
    await running('hook-cr');
    await h.http('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/pruned`, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, merge);
    await eventually(async () => ((await h.http('GET', `${revisions}/${first.metadata.name}`)).status === 404 ? true : undefined));
    await gone('hook-cr');
  });
});
