// The StatefulSet controller (kube-controller-manager's, in the sandbox) and its ControllerRevisions:
// first as the reference observed it on a cluster without kubelets (section L.2), then end to end with
// the simulated nodes: OrderedReady and Parallel, partitioned rolling updates, OnDelete, scaling,
// minReadySeconds, revision history, and kubectl rollout.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import { getJson, runningStatus, type Json } from './workloads.ts';

const merge = { 'Content-Type': 'application/merge-patch+json' };

const statefulSet = (name: string, extra: { spec?: Json; template?: Json; podSpec?: Json; metadata?: Json } = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, ...(extra.metadata ?? {}) },
  spec: {
    serviceName: name,
    replicas: 3,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name }, ...(extra.template ?? {}) },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...(extra.podSpec ?? {}) },
    },
    ...(extra.spec ?? {}),
  },
});

const setPath = (ns: string, name = ''): string => `/apis/apps/v1/namespaces/${ns}/statefulsets${name ? `/${name}` : ''}`;

async function create(h: Harness, ns: string, body: Json): Promise<Json> {
  const res = await h.http('POST', setPath(ns), body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function podsOf(h: Harness, ns: string, app: string): Promise<Json[]> {
  const list = await getJson(h, `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return list.items.sort((a: Json, b: Json) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

async function revisionsOf(h: Harness, ns: string, app: string): Promise<Json[]> {
  const list = await getJson(h, `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3D${app}`);
  return list.items.sort((a: Json, b: Json) => a.revision - b.revision);
}

const isReady = (pod: Json): boolean => pod.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True') === true;

/**
 * Replays the sandbox's write log: after every pod write since `sinceRv`, how many of `app`'s ordinals
 * (those listed) had no pod, a terminating one or one not Ready. Returns the most seen at once.
 */
function mostUnavailable(h: Harness, app: string, sinceRv: number, ordinals: readonly number[]): number {
  const live = new Map<string, Json>();
  let most = 0;
  for (const record of h.sandbox.history?.records('pods') ?? []) {
    if (record.object.metadata.labels?.app !== app) continue;
    if (record.type === 'DELETED') live.delete(record.name);
    else live.set(record.name, record.object);
    if (record.resourceVersion <= sinceRv) continue;
    const unavailable = ordinals.filter((i) => {
      const pod = live.get(`${app}-${i}`);
      return !pod || pod.metadata.deletionTimestamp || !isReady(pod);
    });
    most = Math.max(most, unavailable.length);
  }
  return most;
}

/** The pods of `app` in the order their deletion began since `sinceRv`, from the write log. */
function deletionOrder(h: Harness, app: string, sinceRv: number): string[] {
  const seen = new Set<string>();
  const order: string[] = [];
  for (const record of h.sandbox.history?.records('pods') ?? []) {
    const pod = record.object;
    if (record.resourceVersion <= sinceRv || pod.metadata.labels?.app !== app || !pod.metadata.deletionTimestamp) continue;
    if (!seen.has(pod.metadata.uid ?? '')) {
      seen.add(pod.metadata.uid ?? '');
      order.push(pod.metadata.name ?? '');
    }
  }
  return order;
}

async function eventsOf(h: Harness, ns: string, name: string): Promise<Json[]> {
  const list = await getJson(h, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${name}`);
  return list.items;
}

describe('StatefulSets on a cluster without kubelets (reference L.2)', () => {
  let h: Harness;
  const ns = 'sts-ref';
  before(async () => {
    h = await startHarness({ simulation: { nodes: 0 } });
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => h.stop());

  test('defaults; maxUnavailable is dropped while its feature gate is off (v1.32)', async () => {
    const created = await create(h, ns, statefulSet('defaults', { spec: { replicas: 0, updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } } }));
    assert.deepEqual(created.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.equal(created.spec.revisionHistoryLimit, 10);
    assert.deepEqual(created.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(created.spec.podManagementPolicy, 'OrderedReady');
  });

  test('the ControllerRevision: the real name hash, labels, revision 1, owner, and the template patch as data', async () => {
    // The same StatefulSet on a real cluster got the revision nginx-sts-6798d68dcd.
    const set = await create(h, ns, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'nginx-sts' },
      spec: { replicas: 0, serviceName: 'nginx-sts', selector: { matchLabels: { app: 'nginx-sts' } }, template: { metadata: { labels: { app: 'nginx-sts' } }, spec: { containers: [{ image: 'nginx', name: 'nginx' }] } } },
    });
    const revision = await eventually(async () => (await revisionsOf(h, ns, 'nginx-sts'))[0]);
    assert.equal(revision.metadata.name, 'nginx-sts-6798d68dcd');
    assert.deepEqual(revision.metadata.labels, { app: 'nginx-sts', 'controller.kubernetes.io/hash': '6798d68dcd' });
    assert.equal(revision.revision, 1);
    assert.deepEqual(revision.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'nginx-sts', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const raw = await h.http('GET', `/apis/apps/v1/namespaces/${ns}/controllerrevisions/nginx-sts-6798d68dcd`);
    assert.match(
      raw.text,
      /"data":\{"spec":\{"template":\{"\$patch":"replace","metadata":\{"creationTimestamp":null,"labels":\{"app":"nginx-sts"\}\},"spec":\{"containers":\[\{"image":"nginx","imagePullPolicy":"Always","name":"nginx","resources":\{\},"terminationMessagePath":"\/dev\/termination-log","terminationMessagePolicy":"File"\}\],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":\{\},"terminationGracePeriodSeconds":30\}\}\}\}/,
    );
  });

  test('OrderedReady creates only db-0 (it never becomes Ready): pod identity and the exact status', async () => {
    const set = await create(h, ns, statefulSet('db'));
    const [revision] = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'db');
      return found.length ? found : undefined;
    });
    const revisionName = revision.metadata.name;
    assert.match(revisionName, /^db-[bcdfghjklmnpqrstvwxz2456789]{7,10}$/);
    const status = await eventually(async () => {
      const raw = await h.http('GET', setPath(ns, 'db'));
      return raw.json.status?.replicas === 1 ? raw.text : undefined;
    });
    assert.ok(
      status.includes(
        `"status":{"observedGeneration":1,"replicas":1,"currentReplicas":1,"updatedReplicas":1,"currentRevision":"${revisionName}","updateRevision":"${revisionName}","collisionCount":0,"availableReplicas":0}`,
      ),
      status,
    );
    const pods = await podsOf(h, ns, 'db');
    assert.deepEqual(
      pods.map((p) => p.metadata.name),
      ['db-0'],
    );
    const [pod] = pods;
    assert.deepEqual(pod.metadata.labels, { app: 'db', 'apps.kubernetes.io/pod-index': '0', 'controller-revision-hash': revisionName, 'statefulset.kubernetes.io/pod-name': 'db-0' });
    assert.equal(pod.metadata.generateName, 'db-');
    assert.equal(pod.spec.hostname, 'db-0');
    assert.equal(pod.spec.subdomain, 'db');
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const [event] = await eventually(async () => {
      const events = (await eventsOf(h, ns, 'db')).filter((e) => e.reason === 'SuccessfulCreate');
      return events.length ? events : undefined;
    });
    assert.match(event.metadata.name, /^db\.[0-9a-f]{16}$/);
    assert.equal(event.message, 'create Pod db-0 in StatefulSet db successful');
    assert.equal(event.type, 'Normal');
    assert.deepEqual(event.source, { component: 'statefulset-controller' });
    assert.equal(event.reportingComponent, 'statefulset-controller');
    assert.deepEqual(event.involvedObject, { kind: 'StatefulSet', namespace: ns, name: 'db', uid: set.metadata.uid, apiVersion: 'apps/v1', resourceVersion: event.involvedObject.resourceVersion });
  });

  test('Parallel creates all pods at once; a template change makes revision 2 and replaces the highest ordinal first', async () => {
    await create(h, ns, statefulSet('par', { spec: { podManagementPolicy: 'Parallel' } }));
    await eventually(async () => ((await podsOf(h, ns, 'par')).length === 3 ? true : undefined));
    const [first] = await revisionsOf(h, ns, 'par');
    await h.http('PATCH', setPath(ns, 'par'), { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    const status = await eventually(async () => {
      const set = await getJson(h, setPath(ns, 'par'));
      return set.status.observedGeneration === 2 && set.status.updatedReplicas === 1 ? set.status : undefined;
    });
    const revisions = await revisionsOf(h, ns, 'par');
    assert.equal(revisions.length, 2);
    const second = revisions[1];
    assert.equal(second.revision, 2);
    assert.deepEqual(status, {
      observedGeneration: 2,
      replicas: 3,
      currentReplicas: 2,
      updatedReplicas: 1,
      currentRevision: first.metadata.name,
      updateRevision: second.metadata.name,
      collisionCount: 0,
      availableReplicas: 0,
    });
    const revisionByPod = Object.fromEntries((await podsOf(h, ns, 'par')).map((p) => [p.metadata.name, p.metadata.labels['controller-revision-hash']]));
    assert.deepEqual(revisionByPod, { 'par-0': first.metadata.name, 'par-1': first.metadata.name, 'par-2': second.metadata.name });
    const messages = (await eventsOf(h, ns, 'par')).map((e) => `${e.reason} ${e.message}`);
    assert.ok(messages.includes('SuccessfulDelete delete Pod par-2 in StatefulSet par successful'), messages.join('\n'));
  });

  test('a Failed pod is deleted and recreated', async () => {
    await create(h, ns, statefulSet('fail', { spec: { replicas: 1 } }));
    const pod = await eventually(async () => (await podsOf(h, ns, 'fail'))[0]);
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/fail-0/status`, { status: { phase: 'Failed' } }, merge);
    await eventually(async () => {
      const [next] = await podsOf(h, ns, 'fail');
      return next && next.metadata.uid !== pod.metadata.uid && next.status.phase === 'Pending' ? true : undefined;
    });
  });

  test('orphaned pods and revisions are adopted by a new StatefulSet with the same selector', async () => {
    await create(h, ns, statefulSet('adopt', { spec: { replicas: 2, podManagementPolicy: 'Parallel' } }));
    const before = await eventually(async () => {
      const pods = await podsOf(h, ns, 'adopt');
      return pods.length === 2 ? pods : undefined;
    });
    await h.http('DELETE', setPath(ns, 'adopt'), { propagationPolicy: 'Orphan' });
    await eventually(async () => ((await podsOf(h, ns, 'adopt')).every((p) => !p.metadata.ownerReferences) && (await h.http('GET', setPath(ns, 'adopt'))).status === 404 ? true : undefined));
    const set = await create(h, ns, statefulSet('adopt', { spec: { replicas: 2, podManagementPolicy: 'Parallel' } }));
    const after = await eventually(async () => {
      const pods = await podsOf(h, ns, 'adopt');
      return pods.every((p) => p.metadata.ownerReferences?.[0]?.uid === set.metadata.uid) ? pods : undefined;
    });
    assert.deepEqual(after.map((p) => p.metadata.uid), before.map((p) => p.metadata.uid), 'the same pods, adopted');
    const revisions = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'adopt');
      return found.every((r) => r.metadata.ownerReferences?.[0]?.uid === set.metadata.uid) ? found : undefined;
    });
    assert.equal(revisions.length, 1, 'the orphaned revision is adopted, not recreated');
  });

  test('an equal older revision is reused with the next revision number; a name collision bumps collisionCount', async () => {
    await create(h, ns, statefulSet('back', { spec: { replicas: 0 } }));
    const [v1] = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'back');
      return found.length ? found : undefined;
    });
    const image = (tag: string): Json => ({ spec: { template: { spec: { containers: [{ name: 'c', image: `nginx:${tag}` }] } } } });
    await h.http('PATCH', setPath(ns, 'back'), image('2'), { 'Content-Type': 'application/strategic-merge-patch+json' });
    await eventually(async () => ((await revisionsOf(h, ns, 'back')).length === 2 ? true : undefined));
    await h.http('PATCH', setPath(ns, 'back'), image('1.27'), { 'Content-Type': 'application/strategic-merge-patch+json' });
    const reused = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'back');
      return found.find((r) => r.metadata.name === v1.metadata.name && r.revision === 3);
    });
    assert.equal((await revisionsOf(h, ns, 'back')).length, 2);
    assert.equal((await getJson(h, setPath(ns, 'back'))).status.updateRevision, reused.metadata.name);

    // Another revision already holds the name the next template hashes to: the count moves on.
    await create(h, ns, statefulSet('clash', { spec: { replicas: 0 } }));
    const [taken] = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'clash');
      return found.length ? found : undefined;
    });
    await h.http('DELETE', setPath(ns, 'clash'));
    const revisionPath = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
    await eventually(async () => ((await h.http('GET', `${revisionPath}/${taken.metadata.name}`)).status === 404 ? true : undefined));
    const squatter = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: taken.metadata.name, labels: { app: 'elsewhere' } }, data: { spec: { template: { $patch: 'replace' } } }, revision: 1 };
    assert.equal((await h.http('POST', revisionPath, squatter)).status, 201);
    await create(h, ns, statefulSet('clash', { spec: { replicas: 0 } }));
    const status = await eventually(async () => (await getJson(h, setPath(ns, 'clash'))).status?.collisionCount === 1 ? (await getJson(h, setPath(ns, 'clash'))).status : undefined);
    assert.notEqual(status.updateRevision, taken.metadata.name);
    assert.match(status.updateRevision, /^clash-[bcdfghjklmnpqrstvwxz2456789]{7,10}$/);
  });
});

describe('StatefulSets on simulated nodes', () => {
  let h: Harness;
  const ns = 'sts';
  before(async () => {
    h = await startHarness({ recordWrites: true, simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => h.stop());

  const statusOf = async (name: string): Promise<Json> => (await getJson(h, setPath(ns, name))).status ?? {};
  const rolledOut = (name: string, replicas: number) =>
    eventually(async () => {
      const status = await statusOf(name);
      return status.readyReplicas === replicas && status.updatedReplicas === replicas && status.currentRevision === status.updateRevision ? status : undefined;
    }, 10_000);


  test('a rolling update with partition 2 of 5 updates exactly ordinals 4, 3, 2, in that order; lower ordinals stay even when recreated', async () => {
    await create(h, ns, statefulSet('part', { spec: { replicas: 5, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } } }));
    const before = await rolledOut('part', 5);
    const sinceRv = h.sandbox.resourceVersion;
    await h.http('PATCH', setPath(ns, 'part'), { spec: { template: { metadata: { annotations: { release: 'two' } } } } }, merge);
    const status = await eventually(async () => {
      const s = await statusOf('part');
      return s.updatedReplicas === 3 && s.readyReplicas === 5 && s.observedGeneration === 2 ? s : undefined;
    }, 10_000);
    assert.deepEqual(deletionOrder(h, 'part', sinceRv), ['part-4', 'part-3', 'part-2']);
    assert.equal(mostUnavailable(h, 'part', sinceRv, [0, 1, 2, 3, 4]), 1, 'with the gate off, one pod at a time');
    assert.equal(status.currentRevision, before.currentRevision);
    assert.notEqual(status.updateRevision, before.currentRevision);
    assert.equal(status.currentReplicas, 2);
    const revisions = (): Promise<Record<string, string>> =>
      podsOf(h, ns, 'part').then((pods) => Object.fromEntries(pods.map((p) => [p.metadata.name, p.metadata.labels['controller-revision-hash'] === status.updateRevision ? 'new' : 'old'])));
    assert.deepEqual(await revisions(), { 'part-0': 'old', 'part-1': 'old', 'part-2': 'new', 'part-3': 'new', 'part-4': 'new' });

    // Below the partition a deleted pod comes back at the current revision.
    const old = (await podsOf(h, ns, 'part')).find((p) => p.metadata.name === 'part-1');
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/part-1`);
    await eventually(async () => {
      const pod = (await podsOf(h, ns, 'part')).find((p) => p.metadata.name === 'part-1');
      return pod && pod.metadata.uid !== old.metadata.uid && pod.status.phase === 'Running' ? true : undefined;
    });
    assert.deepEqual(await revisions(), { 'part-0': 'old', 'part-1': 'old', 'part-2': 'new', 'part-3': 'new', 'part-4': 'new' });

    // Partition 0 finishes the rollout, and the current revision becomes the update revision.
    await h.http('PATCH', setPath(ns, 'part'), { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, merge);
    const done = await rolledOut('part', 5);
    assert.equal(done.currentRevision, status.updateRevision);
    assert.equal(done.currentReplicas, 5);
    // (the first part-1 is the deletion by hand above)
    assert.deepEqual(deletionOrder(h, 'part', sinceRv), ['part-4', 'part-3', 'part-2', 'part-1', 'part-1', 'part-0']);
  });

  test('Parallel with a partition stepped down as podops steps it: each step updates from the highest ordinal, one pod at a time; raising it downgrades nothing, but a pod deleted below it comes back old', async () => {
    const revisionOf = async (): Promise<Record<string, string>> => {
      const { updateRevision } = await statusOf('step');
      return Object.fromEntries((await podsOf(h, ns, 'step')).map((p) => [p.metadata.name, p.metadata.labels['controller-revision-hash'] === updateRevision ? 'new' : 'old']));
    };
    await create(h, ns, statefulSet('step', { spec: { replicas: 4, podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 4 } } } }));
    const before = await rolledOut('step', 4);
    const sinceRv = h.sandbox.resourceVersion;

    // partition = replicas: the template change makes the update revision and touches no pod.
    await h.http('PATCH', setPath(ns, 'step'), { spec: { template: { metadata: { annotations: { release: 'two' } } } } }, merge);
    const held = await eventually(async () => {
      const s = await statusOf('step');
      return s.observedGeneration === 2 ? s : undefined;
    });
    assert.notEqual(held.updateRevision, before.currentRevision);
    assert.deepEqual(held, { observedGeneration: 2, replicas: 4, readyReplicas: 4, currentReplicas: 4, currentRevision: before.currentRevision, updateRevision: held.updateRevision, collisionCount: 0, availableReplicas: 4 });
    assert.deepEqual((await revisionsOf(h, ns, 'step')).map((r) => [r.metadata.name, r.revision]), [[before.currentRevision, 1], [held.updateRevision, 2]]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(deletionOrder(h, 'step', sinceRv), []);

    // Partition 2: ordinals 3 then 2, one at a time even under Parallel.
    await h.http('PATCH', setPath(ns, 'step'), { spec: { updateStrategy: { rollingUpdate: { partition: 2 } } } }, merge);
    const two = await eventually(async () => {
      const s = await statusOf('step');
      return s.updatedReplicas === 2 && s.availableReplicas === 4 ? s : undefined;
    });
    assert.deepEqual(two, { observedGeneration: 3, replicas: 4, readyReplicas: 4, currentReplicas: 2, updatedReplicas: 2, currentRevision: before.currentRevision, updateRevision: held.updateRevision, collisionCount: 0, availableReplicas: 4 });
    assert.deepEqual(deletionOrder(h, 'step', sinceRv), ['step-3', 'step-2']);
    assert.equal(mostUnavailable(h, 'step', sinceRv, [0, 1, 2, 3]), 1);
    assert.deepEqual(await revisionOf(), { 'step-0': 'old', 'step-1': 'old', 'step-2': 'new', 'step-3': 'new' });

    // Partition 3: step-2 keeps the update revision...
    await h.http('PATCH', setPath(ns, 'step'), { spec: { updateStrategy: { rollingUpdate: { partition: 3 } } } }, merge);
    await eventually(async () => ((await statusOf('step')).observedGeneration === 4 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(await revisionOf(), { 'step-0': 'old', 'step-1': 'old', 'step-2': 'new', 'step-3': 'new' });
    assert.deepEqual(deletionOrder(h, 'step', sinceRv), ['step-3', 'step-2']);
    // ...until it is deleted: below the partition a pod is recreated at the current revision.
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/step-2`);
    const back = await eventually(async () => {
      const s = await statusOf('step');
      return s.updatedReplicas === 1 && s.availableReplicas === 4 ? s : undefined;
    });
    assert.equal(back.currentReplicas, 3);
    assert.deepEqual(await revisionOf(), { 'step-0': 'old', 'step-1': 'old', 'step-2': 'old', 'step-3': 'new' });

    // Partition 0: the rest, highest first; then the current revision is the update revision.
    await h.http('PATCH', setPath(ns, 'step'), { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, merge);
    const done = await rolledOut('step', 4);
    assert.deepEqual(done, { observedGeneration: 5, replicas: 4, readyReplicas: 4, currentReplicas: 4, updatedReplicas: 4, currentRevision: held.updateRevision, updateRevision: held.updateRevision, collisionCount: 0, availableReplicas: 4 });
    // (the second step-2 is the deletion by hand above)
    assert.deepEqual(deletionOrder(h, 'step', sinceRv), ['step-3', 'step-2', 'step-2', 'step-2', 'step-1', 'step-0']);
    assert.equal(mostUnavailable(h, 'step', sinceRv, [0, 1, 2, 3]), 1);
  });

  test('OrderedReady with partition 32767: the template change makes revision 2 and no pod moves; currentRevision changes only once every pod is updated', async () => {
    await create(h, ns, statefulSet('frozen', { spec: { replicas: 2, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 32767 } } } }));
    const before = await rolledOut('frozen', 2);
    const sinceRv = h.sandbox.resourceVersion;
    await h.http('PATCH', setPath(ns, 'frozen'), { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } }, merge);
    const held = await eventually(async () => {
      const s = await statusOf('frozen');
      return s.observedGeneration === 2 ? s : undefined;
    });
    assert.notEqual(held.updateRevision, before.currentRevision);
    assert.equal(held.currentRevision, before.currentRevision);
    assert.equal(held.updatedReplicas, undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(deletionOrder(h, 'frozen', sinceRv), []);
    assert.deepEqual((await podsOf(h, ns, 'frozen')).map((p) => [p.metadata.labels['controller-revision-hash'], p.spec.containers[0].image]), [
      [before.currentRevision, 'nginx:1.27'],
      [before.currentRevision, 'nginx:1.27'],
    ]);
    await h.http('PATCH', setPath(ns, 'frozen'), { spec: { updateStrategy: { rollingUpdate: { partition: 1 } } } }, merge);
    const one = await eventually(async () => {
      const s = await statusOf('frozen');
      return s.updatedReplicas === 1 && s.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(one.currentRevision, before.currentRevision, 'not every pod is updated yet');
    await h.http('PATCH', setPath(ns, 'frozen'), { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, merge);
    const done = await rolledOut('frozen', 2);
    assert.equal(done.currentRevision, held.updateRevision);
    assert.deepEqual(deletionOrder(h, 'frozen', sinceRv), ['frozen-1', 'frozen-0']);
  });

  test('OrderedReady creates each pod only once its predecessor is Running and Ready, and scales down from the highest ordinal', async () => {
    await create(h, ns, statefulSet('ordered', { template: { annotations: { 'sandbox.podops.io/ready': 'false' } } }));
    await eventually(async () => ((await podsOf(h, ns, 'ordered'))[0]?.status.phase === 'Running' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual((await podsOf(h, ns, 'ordered')).map((p) => p.metadata.name), ['ordered-0'], 'ordered-1 waits for ordered-0 to be Ready');
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/ordered-0`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'true' } } }, merge);
    await eventually(async () => ((await podsOf(h, ns, 'ordered')).length === 2 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await podsOf(h, ns, 'ordered')).length, 2, 'ordered-2 waits for ordered-1');
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/ordered-1`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'true' } } }, merge);
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/ordered-2`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'true' } } }, merge).catch(() => undefined);
    await eventually(async () => ((await podsOf(h, ns, 'ordered')).length === 3 ? true : undefined));
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/ordered-2`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'true' } } }, merge);
    await eventually(async () => ((await statusOf('ordered')).readyReplicas === 3 ? true : undefined));

    const sinceRv = h.sandbox.resourceVersion;
    await h.http('PATCH', `${setPath(ns, 'ordered')}/scale`, { spec: { replicas: 1 } }, merge);
    await eventually(async () => ((await podsOf(h, ns, 'ordered')).length === 1 ? true : undefined));
    assert.deepEqual(deletionOrder(h, 'ordered', sinceRv), ['ordered-2', 'ordered-1']);
    assert.deepEqual((await statusOf('ordered')).replicas, 1);
  });

  test('OnDelete keeps the old pods until they are deleted; replacements get the new template', async () => {
    await create(h, ns, statefulSet('ondel', { spec: { updateStrategy: { type: 'OnDelete' } } }));
    const before = await eventually(async () => {
      const s = await statusOf('ondel');
      return s.readyReplicas === 3 ? s : undefined;
    });
    await h.http('PATCH', setPath(ns, 'ondel'), { spec: { template: { metadata: { annotations: { release: 'two' } } } } }, merge);
    const status = await eventually(async () => {
      const s = await statusOf('ondel');
      return s.observedGeneration === 2 ? s : undefined;
    });
    assert.notEqual(status.updateRevision, before.currentRevision);
    assert.equal(status.currentRevision, before.currentRevision);
    assert.equal(status.updatedReplicas ?? 0, 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      (await podsOf(h, ns, 'ondel')).map((p) => p.metadata.labels['controller-revision-hash']),
      [before.currentRevision, before.currentRevision, before.currentRevision],
    );
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/ondel-1`);
    const pods = await eventually(async () => {
      const found = await podsOf(h, ns, 'ondel');
      return found.length === 3 && found[1].metadata.labels['controller-revision-hash'] === status.updateRevision ? found : undefined;
    });
    assert.equal(pods[1].metadata.annotations.release, 'two');
    assert.equal(pods[0].metadata.labels['controller-revision-hash'], before.currentRevision);
    assert.equal(pods[2].metadata.labels['controller-revision-hash'], before.currentRevision);
    const after = await eventually(async () => ((await statusOf('ondel')).updatedReplicas === 1 ? statusOf('ondel') : undefined));
    // OnDelete never completes a rolling update: the current revision stays the old one.
    assert.equal(after.currentRevision, before.currentRevision);
  });

  test('minReadySeconds: pods count as available only after it; scaling up creates the next ordinals', async () => {
    // Ready times have whole seconds, so a pod just made Ready may already count as up to 1 s old;
    // 3 s leaves the read of readyReplicas below at least 2 s of room on a slow machine.
    await create(h, ns, statefulSet('minready', { spec: { replicas: 2, minReadySeconds: 3, podManagementPolicy: 'Parallel' } }));
    const ready = await eventually(async () => {
      const s = await statusOf('minready');
      return s.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(ready.availableReplicas, 0);
    await eventually(async () => ((await statusOf('minready')).availableReplicas === 2 ? true : undefined), 7000);
    await h.http('PATCH', `${setPath(ns, 'minready')}/scale`, { spec: { replicas: 4 } }, merge);
    await eventually(async () => ((await podsOf(h, ns, 'minready')).map((p) => p.metadata.name).join() === 'minready-0,minready-1,minready-2,minready-3' ? true : undefined));
  });

  test('revisionHistoryLimit keeps the newest unused revisions', async () => {
    await create(h, ns, statefulSet('history', { spec: { replicas: 1, revisionHistoryLimit: 1 } }));
    for (const release of ['a', 'b', 'c']) {
      await h.http('PATCH', setPath(ns, 'history'), { spec: { template: { metadata: { annotations: { release } } } } }, merge);
      await rolledOut('history', 1);
    }
    const revisions = await eventually(async () => {
      const found = await revisionsOf(h, ns, 'history');
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(revisions.map((r) => r.revision), [3, 4]);
  });

  test('kubectl rollout status, history, undo and restart; pause is refused', { skip: skipWithoutKubectl }, async () => {
    await create(h, ns, statefulSet('roll', { metadata: { annotations: { 'kubernetes.io/change-cause': 'first' } } }));
    const status = await h.kubectl(['-n', ns, 'rollout', 'status', 'statefulset/roll', '--timeout=20s']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /partitioned roll out complete: 3 new pods have been updated\.\.\./);
    assert.equal((await h.kubectl(['-n', ns, 'set', 'image', 'statefulset/roll', 'c=nginx:1.28'])).code, 0);
    assert.equal((await h.kubectl(['-n', ns, 'rollout', 'status', 'statefulset/roll', '--timeout=20s'])).code, 0);
    await rolledOut('roll', 3);
    const history = await h.kubectl(['-n', ns, 'rollout', 'history', 'statefulset/roll']);
    assert.equal(history.stdout, 'statefulset.apps/roll \nREVISION  CHANGE-CAUSE\n1         first\n2         first\n\n');
    const one = await h.kubectl(['-n', ns, 'rollout', 'history', 'statefulset/roll', '--revision=1']);
    assert.match(one.stdout, /statefulset.apps\/roll with revision #1\nPod Template:\n {2}Labels:\tapp=roll\n {2}Containers:\n {3}c:\n {4}Image:\tnginx:1\.27/);
    const undo = await h.kubectl(['-n', ns, 'rollout', 'undo', 'statefulset/roll']);
    assert.equal(undo.stdout, 'statefulset.apps/roll rolled back\n');
    await eventually(async () => {
      const pods = await podsOf(h, ns, 'roll');
      return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.27' && p.status.phase === 'Running') ? true : undefined;
    }, 10_000);
    const rewound = await h.kubectl(['-n', ns, 'rollout', 'history', 'statefulset/roll']);
    assert.equal(rewound.stdout, 'statefulset.apps/roll \nREVISION  CHANGE-CAUSE\n2         first\n3         first\n\n', 'revision 1 is reused as revision 3');
    const restart = await h.kubectl(['-n', ns, 'rollout', 'restart', 'statefulset/roll']);
    assert.equal(restart.stdout, 'statefulset.apps/roll restarted\n');
    await eventually(async () => {
      const pods = await podsOf(h, ns, 'roll');
      return pods.length === 3 && pods.every((p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] && p.status.phase === 'Running') ? true : undefined;
    }, 10_000);
    const pause = await h.kubectl(['-n', ns, 'rollout', 'pause', 'statefulset/roll']);
    assert.notEqual(pause.code, 0);
    assert.match(pause.stderr, /statefulsets.apps "roll" pausing is not supported/);
  });

  test('pods reported Running and Ready through pods/status count as ready (no kubelet needed)', async () => {
    // A pod the controller sees Running and Ready is ready whoever reported it.
    await create(h, ns, statefulSet('manual', { spec: { replicas: 1 }, podSpec: { schedulerName: 'nobody' } }));
    await eventually(async () => ((await podsOf(h, ns, 'manual')).length === 1 ? true : undefined));
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/manual-0/status`, { status: runningStatus(true) }, merge);
    await eventually(async () => ((await statusOf('manual')).readyReplicas === 1 ? true : undefined));
  });
});

describe('StatefulSets with the MaxUnavailableStatefulSet feature gate on', () => {
  let h: Harness;
  const ns = 'sts-gate';
  before(async () => {
    h = await startHarness({
      recordWrites: true,
      featureGates: { MaxUnavailableStatefulSet: true },
      simulation: { nodes: 3, kubelet: { startDelayMs: 20, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } },
    });
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => h.stop());

  const statusOf = async (name: string): Promise<Json> => (await getJson(h, setPath(ns, name))).status ?? {};
  const rolledOut = (name: string, replicas: number) =>
    eventually(async () => {
      const status = await statusOf(name);
      return status.availableReplicas === replicas && status.updatedReplicas === replicas && status.currentRevision === status.updateRevision ? status : undefined;
    }, 10_000);
  const release = (name: string, value: string): Promise<unknown> => h.http('PATCH', setPath(ns, name), { spec: { template: { metadata: { annotations: { release: value } } } } }, merge);
  const revisionsByPod = async (app: string, updateRevision: string): Promise<Record<string, string>> =>
    Object.fromEntries((await podsOf(h, ns, app)).map((p) => [p.metadata.name, p.metadata.labels['controller-revision-hash'] === updateRevision ? 'new' : 'old']));

  test('the API server keeps maxUnavailable and defaults it to 1', async () => {
    const kept = await create(h, ns, statefulSet('kept', { spec: { replicas: 0, updateStrategy: { rollingUpdate: { maxUnavailable: '40%' } } } }));
    assert.deepEqual(kept.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '40%' } });
    const defaulted = await create(h, ns, statefulSet('defaulted', { spec: { replicas: 0 } }));
    assert.deepEqual(defaulted.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } });
    const zero = await h.http('POST', setPath(ns), statefulSet('zero', { spec: { replicas: 0, updateStrategy: { rollingUpdate: { maxUnavailable: 0 } } } }));
    assert.equal(zero.status, 422, zero.text);
    assert.equal(zero.json.message, 'StatefulSet.apps "zero" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: cannot be 0');
  });

  test('Parallel, 5 replicas, maxUnavailable 2: two pods replaced at a time, from the highest ordinal, never more unavailable', async () => {
    await create(h, ns, statefulSet('wide', { spec: { replicas: 5, podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } } }));
    await rolledOut('wide', 5);
    const sinceRv = h.sandbox.resourceVersion;
    await release('wide', 'two');
    const done = await eventually(async () => {
      const status = await rolledOut('wide', 5);
      return status.observedGeneration === 2 ? status : undefined;
    }, 15_000);
    assert.equal(mostUnavailable(h, 'wide', sinceRv, [0, 1, 2, 3, 4]), 2);
    const order = deletionOrder(h, 'wide', sinceRv);
    assert.deepEqual(order.slice(0, 2), ['wide-4', 'wide-3'], 'the first two deletions together');
    assert.deepEqual([...order].sort(), ['wide-0', 'wide-1', 'wide-2', 'wide-3', 'wide-4'], 'each pod replaced once');
    assert.deepEqual(await revisionsByPod('wide', done.updateRevision), { 'wide-0': 'new', 'wide-1': 'new', 'wide-2': 'new', 'wide-3': 'new', 'wide-4': 'new' });
  });

  test('a partition still holds: with maxUnavailable 60% of 5, ordinals 4, 3, 2 go at once and 0, 1 keep the current revision', async () => {
    await create(h, ns, statefulSet('cut', { spec: { replicas: 5, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: '60%' } } } }));
    const before = await rolledOut('cut', 5);
    const sinceRv = h.sandbox.resourceVersion;
    await release('cut', 'two');
    const status = await eventually(async () => {
      const s = await statusOf('cut');
      return s.updatedReplicas === 3 && s.availableReplicas === 5 && s.observedGeneration === 2 ? s : undefined;
    }, 10_000);
    assert.deepEqual(deletionOrder(h, 'cut', sinceRv), ['cut-4', 'cut-3', 'cut-2']);
    assert.equal(mostUnavailable(h, 'cut', sinceRv, [2, 3, 4]), 3, 'the three replaced together');
    assert.equal(mostUnavailable(h, 'cut', sinceRv, [0, 1]), 0);
    assert.equal(status.currentRevision, before.currentRevision);
    assert.deepEqual(await revisionsByPod('cut', status.updateRevision), { 'cut-0': 'old', 'cut-1': 'old', 'cut-2': 'new', 'cut-3': 'new', 'cut-4': 'new' });
  });

  test('a pod that is not Ready uses up the budget: with one unready pod and maxUnavailable 2, the others go one at a time', async () => {
    await create(h, ns, statefulSet('budget', { spec: { replicas: 4, podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } } }));
    await rolledOut('budget', 4);
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/budget-0`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } }, merge);
    await eventually(async () => ((await statusOf('budget')).readyReplicas === 3 ? true : undefined));
    const sinceRv = h.sandbox.resourceVersion;
    await release('budget', 'two');
    const done = await eventually(async () => {
      const status = await rolledOut('budget', 4);
      return status.observedGeneration === 2 ? status : undefined;
    }, 15_000);
    assert.equal(mostUnavailable(h, 'budget', sinceRv, [1, 2, 3]), 1, 'budget-0 counted against maxUnavailable');
    assert.deepEqual(deletionOrder(h, 'budget', sinceRv), ['budget-3', 'budget-2', 'budget-1', 'budget-0']);
    assert.deepEqual(await revisionsByPod('budget', done.updateRevision), { 'budget-0': 'new', 'budget-1': 'new', 'budget-2': 'new', 'budget-3': 'new' });
  });

  test('minReadySeconds: a Ready replacement stays unavailable until it has been Ready that long', async () => {
    await create(h, ns, statefulSet('slow', { spec: { replicas: 3, minReadySeconds: 1, podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } } }));
    await rolledOut('slow', 3);
    const sinceRv = h.sandbox.resourceVersion;
    await release('slow', 'two');
    await eventually(async () => {
      const status = await rolledOut('slow', 3);
      return status.observedGeneration === 2 ? status : undefined;
    }, 15_000);
    const records = (h.sandbox.history?.records('pods') ?? []).filter((r) => r.resourceVersion > sinceRv && r.object.metadata.labels?.app === 'slow');
    const deletedAt = (name: string): number => (records.find((r) => r.name === name && r.object.metadata.deletionTimestamp) as { time: number }).time;
    // The replacements of slow-2 and slow-1: the earliest moment either became available.
    const availableAt = Math.min(
      ...['slow-2', 'slow-1'].map((name) => {
        const ready = records.find((r) => r.name === name && r.time > deletedAt(name) && !r.object.metadata.deletionTimestamp && isReady(r.object)) as { object: Json };
        const since = ready.object.status.conditions.find((c: Json) => c.type === 'Ready').lastTransitionTime;
        return Date.parse(since) + 1000;
      }),
    );
    assert.deepEqual(deletionOrder(h, 'slow', sinceRv), ['slow-2', 'slow-1', 'slow-0']);
    assert.ok(deletedAt('slow-0') >= availableAt, `slow-0 deleted ${availableAt - deletedAt('slow-0')} ms before a replacement was available`);
  });
});
