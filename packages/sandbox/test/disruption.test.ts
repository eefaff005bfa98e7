// The disruption controller (kube-controller-manager's, in the simulated cluster) and the eviction
// subresource over the budgets it keeps: PodDisruptionBudget status fields and their order, the
// DisruptionAllowed condition, expectedPods from the controllers' scale (integers, percentages,
// unmanaged pods, a controller without scale), unhealthyPodEvictionPolicy, and the eviction's answers
// (201, 429, 500, dry run, delete options, terminating and uncovered pods, a conflicting status write).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';
import type { Json } from './workloads.ts';

let h: Harness;
const merge = { 'Content-Type': 'application/merge-patch+json' };
const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

before(async () => {
  h = await startHarness({ recordWrites: true, simulation: { nodes: 2, kubelet: { startDelayMs: 0, gracePeriodCapMs: 100, leaseRenewIntervalMs: 0 } } });
});
after(() => h.stop());

const namespace = async (name: string): Promise<void> => {
  const res = await h.http('POST', '/api/v1/namespaces', { metadata: { name } });
  assert.equal(res.status, 201, res.text);
};
const create = async (path: string, body: Json): Promise<Json> => {
  const res = await h.http('POST', path, body);
  assert.equal(res.status, 201, res.text);
  return res.json;
};
const template = (app: string, extra: Json = {}): Json => ({
  metadata: { labels: { app }, ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(extra.spec ?? {}) },
});
const deployment = (ns: string, name: string, replicas: number, extra: Json = {}): Promise<Json> =>
  create(`/apis/apps/v1/namespaces/${ns}/deployments`, { metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: template(name, extra) } });
const budget = (ns: string, name: string, spec: Json): Promise<Json> =>
  create(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { metadata: { name }, spec: { selector: { matchLabels: { app: name } }, ...spec } });
const getBudget = async (ns: string, name: string): Promise<Json> => (await h.http('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`)).json;
/** Waits until the budget's status satisfies `check`. */
const budgetWhere = (ns: string, name: string, check: (status: Json) => boolean, timeoutMs?: number): Promise<Json> =>
  eventually(async () => {
    const pdb = await getBudget(ns, name);
    return pdb.status && check(pdb.status) ? pdb : undefined;
  }, timeoutMs);
const readyPods = async (ns: string, app: string, count: number): Promise<Json[]> =>
  eventually(async () => {
    const pods = (await h.http('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`)).json.items as Json[];
    const ready = pods.filter((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True'));
    return ready.length === count ? ready : undefined;
  });
const evict = (ns: string, pod: string, extra: Json = {}, query = ''): Promise<Json> =>
  h.http('POST', `/api/v1/namespaces/${ns}/pods/${pod}/eviction${query}`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod }, ...extra });
/** Waits for the event of `reason` on the named object (events are written asynchronously). */
const eventOf = (ns: string, name: string, reason: string): Promise<Json> =>
  eventually(async () => ((await h.http('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).json.items as Json[]).find((e) => e.reason === reason));
const condition = (status: Json): Json => {
  const [c] = status.conditions;
  assert.match(c.lastTransitionTime, timestamp);
  const { lastTransitionTime: _t, ...rest } = c;
  return rest;
};
const created = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

describe('the disruption controller', () => {
  const ns = 'budgets';
  before(() => namespace(ns));

  test('a Deployment under maxUnavailable 1: the status in its Go field order, condition SufficientPods', async () => {
    await deployment(ns, 'web', 3);
    await budget(ns, 'web', { maxUnavailable: 1 });
    const pdb = await budgetWhere(ns, 'web', (s) => s.currentHealthy === 3);
    assert.deepEqual(Object.keys(pdb.status), ['observedGeneration', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'conditions']);
    assert.deepEqual({ ...pdb.status, conditions: undefined }, { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, conditions: undefined });
    assert.deepEqual(Object.keys(pdb.status.conditions[0]), ['type', 'status', 'observedGeneration', 'lastTransitionTime', 'reason', 'message']);
    assert.deepEqual(condition(pdb.status), { type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, reason: 'SufficientPods', message: '' });
    // A spec change is observed: maxUnavailable 0 allows nothing.
    const patched = await h.http('PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`, { spec: { maxUnavailable: 0 } }, merge);
    assert.equal(patched.json.metadata.generation, 2);
    const strict = await budgetWhere(ns, 'web', (s) => s.observedGeneration === 2);
    assert.deepEqual({ ...strict.status, conditions: undefined }, { observedGeneration: 2, disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 3, conditions: undefined });
    assert.deepEqual(condition(strict.status), { type: 'DisruptionAllowed', status: 'False', observedGeneration: 2, reason: 'InsufficientPods', message: '' });
  });

  test('percentages count the controllers’ scale, rounded up; an integer minAvailable counts the pods', async () => {
    await create(`/apis/apps/v1/namespaces/${ns}/statefulsets`, { metadata: { name: 'db' }, spec: { replicas: 3, selector: { matchLabels: { app: 'db' } }, template: template('db') } });
    await budget(ns, 'db', { minAvailable: '50%' });
    await deployment(ns, 'api', 4);
    await budget(ns, 'api', { maxUnavailable: '30%' });
    for (let i = 0; i < 2; i++) await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: `solo-${i}`, labels: { app: 'solo' } }, spec: template('solo').spec });
    await budget(ns, 'solo', { minAvailable: 1 });
    const db = await budgetWhere(ns, 'db', (s) => s.currentHealthy === 3);
    assert.deepEqual([db.status.expectedPods, db.status.desiredHealthy, db.status.disruptionsAllowed], [3, 2, 1]);
    const api = await budgetWhere(ns, 'api', (s) => s.currentHealthy === 4);
    assert.deepEqual([api.status.expectedPods, api.status.desiredHealthy, api.status.disruptionsAllowed], [4, 2, 2]);
    const solo = await budgetWhere(ns, 'solo', (s) => s.currentHealthy === 2);
    assert.deepEqual([solo.status.expectedPods, solo.status.desiredHealthy, solo.status.disruptionsAllowed], [2, 1, 1]);
  });

  test('unmanaged pods are left out of the scale and reported; a controller without scale fails the sync', async () => {
    await deployment(ns, 'mixed', 2);
    await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'stray', labels: { app: 'mixed' } }, spec: template('mixed').spec });
    await budget(ns, 'mixed', { maxUnavailable: 1 });
    const mixed = await budgetWhere(ns, 'mixed', (s) => s.currentHealthy === 3);
    assert.deepEqual([mixed.status.expectedPods, mixed.status.desiredHealthy, mixed.status.disruptionsAllowed], [2, 1, 2]);
    const unmanaged = await eventOf(ns, 'mixed', 'UnmanagedPods');
    assert.equal(unmanaged.type, 'Warning');
    assert.equal(unmanaged.source.component, 'controllermanager');
    assert.equal(
      unmanaged.message,
      'Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: mixed,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
    );

    await create(`/apis/batch/v1/namespaces/${ns}/jobs`, { metadata: { name: 'batch' }, spec: { template: { ...template('batch'), spec: { ...template('batch').spec, restartPolicy: 'Never' } } } });
    await budget(ns, 'batch', { maxUnavailable: 1 });
    const failed = await budgetWhere(ns, 'batch', (s) => s.conditions?.[0]?.reason === 'SyncFailed');
    assert.equal(failed.status.disruptionsAllowed, 0);
    assert.deepEqual(condition(failed.status), { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'jobs.batch does not implement the scale subresource' });
    const calculation = await eventOf(ns, 'batch', 'CalculateExpectedPodCountFailed');
    assert.equal(calculation.message, 'Failed to calculate the number of expected pods: jobs.batch does not implement the scale subresource');
  });

  test('a budget selecting no pod expects none and allows nothing; an empty selector selects every pod', async () => {
    await budget(ns, 'nothing', { minAvailable: 1 });
    const none = await budgetWhere(ns, 'nothing', (s) => s.observedGeneration === 1);
    assert.deepEqual({ ...none.status, conditions: undefined }, { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 0, conditions: undefined });
    assert.equal((await eventOf(ns, 'nothing', 'NoPods')).message, 'No matching pods found');

    await namespace('everything');
    await deployment('everything', 'a', 1);
    await deployment('everything', 'b', 2);
    await create('/apis/policy/v1/namespaces/everything/poddisruptionbudgets', { metadata: { name: 'all' }, spec: { selector: {}, minAvailable: 2 } });
    const all = await budgetWhere('everything', 'all', (s) => s.currentHealthy === 3);
    assert.deepEqual([all.status.expectedPods, all.status.disruptionsAllowed], [3, 1]);
  });

  test('disruptedPods: a recent entry keeps its pod out of currentHealthy; one older than 2 minutes is dropped (NotDeleted)', async () => {
    await deployment(ns, 'kept', 3);
    await budget(ns, 'kept', { maxUnavailable: 1 });
    const [recent, stale] = await readyPods(ns, 'kept', 3);
    const pdb = await budgetWhere(ns, 'kept', (s) => s.currentHealthy === 3);
    const ago = (ms: number): string => new Date(Date.now() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const disruptedPods = { [recent.metadata.name]: ago(60_000), [stale.metadata.name]: ago(180_000) };
    const written = await h.http('PUT', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/kept/status`, { ...pdb, status: { ...pdb.status, disruptedPods } });
    assert.equal(written.status, 200, written.text);
    const synced = await budgetWhere(ns, 'kept', (s) => s.currentHealthy === 2);
    assert.deepEqual(synced.status.disruptedPods, { [recent.metadata.name]: disruptedPods[recent.metadata.name] });
    assert.equal(synced.status.disruptionsAllowed, 0);
    const notDeleted = await eventOf(ns, stale.metadata.name, 'NotDeleted');
    assert.equal(notDeleted.message, `Pod was expected by PDB ${ns}/${ns} to be deleted but it wasn't`);
  });

  test('a DisruptionTarget condition on a pod that was not deleted is set back to False after 2 minutes', async () => {
    await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'marked', labels: { app: 'marked' } }, spec: template('marked').spec });
    await readyPods(ns, 'marked', 1);
    const since = new Date(Date.now() - 121_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const target = { type: 'DisruptionTarget', status: 'True', lastTransitionTime: since, reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
    const res = await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/marked/status`, { status: { conditions: [target] } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(res.status, 200, res.text);
    const cleared = await eventually(async () => {
      const pod = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/marked`)).json;
      const c = pod.status.conditions.find((x: Json) => x.type === 'DisruptionTarget');
      return c.status === 'False' ? c : undefined;
    });
    assert.deepEqual(Object.keys(cleared), ['type', 'status', 'lastProbeTime', 'lastTransitionTime']);
    assert.equal(cleared.lastProbeTime, null);
  });
});

describe('evictions against the budgets the controller keeps', () => {
  const ns = 'evictions';
  before(() => namespace(ns));

  test('201: the eviction takes a disruption and records the pod; the controller settles the status again', async () => {
    await deployment(ns, 'web', 3);
    await budget(ns, 'web', { maxUnavailable: 1 });
    const [victim] = await readyPods(ns, 'web', 3);
    const before = await budgetWhere(ns, 'web', (s) => s.disruptionsAllowed === 1 && s.currentHealthy === 3);
    const res = await evict(ns, victim.metadata.name);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json, created);

    // The eviction's own write: one disruption fewer, the pod in disruptedPods, the condition turned False.
    const write = h.sandbox.history
      ?.records('poddisruptionbudgets.policy')
      .find((r) => r.namespace === ns && r.name === 'web' && r.resourceVersion > Number(before.metadata.resourceVersion) && (r.object.status as Json).disruptedPods);
    const status = write?.object.status as Json;
    assert.deepEqual(Object.keys(status), ['observedGeneration', 'disruptedPods', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods', 'conditions']);
    assert.deepEqual(Object.keys(status.disruptedPods), [victim.metadata.name]);
    assert.match(status.disruptedPods[victim.metadata.name], timestamp);
    assert.equal(status.disruptionsAllowed, 0);
    assert.deepEqual(condition(status), { type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, reason: 'InsufficientPods', message: '' });
    assert.ok(write?.object.metadata.managedFields?.some((m: Json) => m.manager === 'kube-apiserver' && m.subresource === 'status'));

    const pod = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`)).json;
    if (pod.metadata) assert.ok(pod.metadata.deletionTimestamp);
    // The pod goes, a replacement becomes ready: one disruption allowed again, nothing left in disruptedPods.
    const settled = await budgetWhere(ns, 'web', (s) => s.currentHealthy === 3 && s.disruptionsAllowed === 1);
    assert.equal(settled.status.disruptedPods, undefined);
  });

  test('429: none allowed, with the DisruptionBudget cause and no Retry-After', async () => {
    await deployment(ns, 'db', 2);
    await budget(ns, 'db', { minAvailable: 2 });
    const [pod] = await readyPods(ns, 'db', 2);
    await budgetWhere(ns, 'db', (s) => s.currentHealthy === 2);
    const res = await evict(ns, pod.metadata.name);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), null);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget db needs 2 healthy pods and has 2 currently' }] },
      code: 429,
    });
  });

  test('dry run: 201 and nothing changes; a dry run named twice differently is a 500', async () => {
    await deployment(ns, 'dry', 2);
    await budget(ns, 'dry', { maxUnavailable: 1 });
    const [pod] = await readyPods(ns, 'dry', 2);
    const pdb = await budgetWhere(ns, 'dry', (s) => s.disruptionsAllowed === 1);
    for (const [extra, query] of [[{}, '?dryRun=All'], [{ deleteOptions: { dryRun: ['All'] } }, '']] as const) {
      const res = await evict(ns, pod.metadata.name, extra, query);
      assert.equal(res.status, 201, res.text);
    }
    const after = await getBudget(ns, 'dry');
    assert.equal(after.metadata.resourceVersion, pdb.metadata.resourceVersion);
    const still = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`)).json;
    assert.equal(still.metadata.deletionTimestamp, undefined);
    assert.equal(still.status.conditions.some((c: Json) => c.type === 'DisruptionTarget'), false);
    const mismatch = await evict(ns, pod.metadata.name, { deleteOptions: { dryRun: ['Other'] } }, '?dryRun=All');
    assert.equal(mismatch.status, 500);
    assert.deepEqual(mismatch.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Non-matching dry-run options in request and content: [All] and [Other]',
      reason: 'Unknown',
      code: 500,
    });
  });

  test('terminating pods and pods no budget covers go at once; delete options apply', async () => {
    await deployment(ns, 'held', 1);
    await budget(ns, 'held', { minAvailable: 1 });
    const [held] = await readyPods(ns, 'held', 1);
    await budgetWhere(ns, 'held', (s) => s.currentHealthy === 1);
    const name = held.metadata.name;
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, { metadata: { finalizers: ['example.com/hold'] } }, merge);
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`);
    const terminating = await evict(ns, name);
    assert.equal(terminating.status, 201, terminating.text);
    assert.equal((await getBudget(ns, 'held')).status.disruptedPods, undefined);
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, { metadata: { finalizers: null } }, merge);

    await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'loner', labels: { app: 'loner' } }, spec: template('loner').spec });
    await readyPods(ns, 'loner', 1);
    const loner = (await h.http('GET', `/api/v1/namespaces/${ns}/pods/loner`)).json;
    const wrongUid = await evict(ns, 'loner', { deleteOptions: { preconditions: { uid: 'not-the-uid' } } });
    assert.equal(wrongUid.status, 409);
    assert.equal(
      wrongUid.json.message,
      `Operation cannot be fulfilled on Pod "loner": the UID in the precondition (not-the-uid) does not match the UID in record (${loner.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const now = await evict(ns, 'loner', { deleteOptions: { gracePeriodSeconds: 0 } });
    assert.equal(now.status, 201, now.text);
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/loner`)).status, 404);
  });

  test('a pod two budgets cover: 500 with the registry’s message', async () => {
    await deployment(ns, 'twice', 1);
    await budget(ns, 'twice', { maxUnavailable: 1 });
    await create(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { metadata: { name: 'twice-again' }, spec: { selector: { matchLabels: { app: 'twice' } }, maxUnavailable: 1 } });
    const [pod] = await readyPods(ns, 'twice', 1);
    const res = await evict(ns, pod.metadata.name);
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    });
  });

  test('unhealthyPodEvictionPolicy: an unready pod goes without a disruption under AlwaysAllow, not under IfHealthyBudget', async () => {
    for (const [app, policy] of [
      ['always', 'AlwaysAllow'],
      ['ifhealthy', 'IfHealthyBudget'],
    ] as const) {
      await deployment(ns, app, 2);
      await budget(ns, app, { minAvailable: 2, unhealthyPodEvictionPolicy: policy });
      const [sick] = await readyPods(ns, app, 2);
      await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${sick.metadata.name}`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } }, merge);
      await budgetWhere(ns, app, (s) => s.currentHealthy === 1 && s.disruptionsAllowed === 0);
      const res = await evict(ns, sick.metadata.name);
      if (policy === 'AlwaysAllow') {
        assert.equal(res.status, 201, res.text);
        assert.equal((await getBudget(ns, app)).status.disruptedPods, undefined);
      } else {
        assert.equal(res.status, 429);
        assert.equal(res.json.details.causes[0].message, `The disruption budget ${app} needs 2 healthy pods and has 1 currently`);
      }
    }
  });

  test('a status write that conflicts is tried again on a fresh read of the budget', async () => {
    await deployment(ns, 'race', 2);
    await budget(ns, 'race', { maxUnavailable: 1 });
    const [pod] = await readyPods(ns, 'race', 2);
    await budgetWhere(ns, 'race', (s) => s.disruptionsAllowed === 1 && s.currentHealthy === 2);
    let raced = false;
    const remove = h.sandbox.addAdmission({
      name: 'race',
      async admit(a) {
        if (raced || a.resource.resource !== 'poddisruptionbudgets' || a.subresource !== 'status' || a.userInfo.username !== 'system:apiserver') return;
        raced = true;
        // Someone else writes the budget between the eviction's read and its write.
        await h.sandbox.client().patch({ group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' }, 'race', 'merge', { metadata: { labels: { touched: 'yes' } } }, { namespace: ns });
      },
    });
    try {
      const start = Date.now();
      const res = await evict(ns, pod.metadata.name);
      assert.equal(res.status, 201, res.text);
      assert.ok(raced);
      assert.ok(Date.now() - start >= 450, 'the retry waits EvictionsRetry’s 500 ms');
    } finally {
      remove();
    }
    const writes = h.sandbox.history?.records('poddisruptionbudgets.policy').filter((r) => r.namespace === ns && r.name === 'race' && (r.object.status as Json).disruptedPods?.[pod.metadata.name]);
    assert.ok(writes?.length);
    assert.equal((writes?.[0]?.object.metadata.labels as Json)?.touched, 'yes');
  });
});
