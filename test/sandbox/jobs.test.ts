// The Job and TTL-after-finished controllers (kube-controller-manager's, in the sandbox) on simulated
// nodes, with the kubelet's container convention deciding how pods end (`sh -c "exit N"`, `sleep S`):
// success with completions and parallelism, failure past backoffLimit, activeDeadlineSeconds,
// ttlSecondsAfterFinished, suspend and resume, Indexed completion, the tracking finalizer, events.
// The controller's 1 s batching and 10 s pod-failure back-off are shortened through the options.

import { after, before, test } from 'node:test';
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
const finished = (name: string, type: string, timeoutMs = 5000): Promise<Json> =>
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
  assert.equal(status.completionTime, done.status.conditions[1].lastTransitionTime);
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
