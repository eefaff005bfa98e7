// The ReplicaSet controller (kube-controller-manager's, in the sandbox): pods from the template,
// adoption and release, readiness and availability, the order of deletions when scaling down, and
// retries when an admission webhook denies a create or a delete. Pod states are set through
// pods/status, as a kubelet would (the sandbox runs no nodes here).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';
import { getJson, runningStatus, startTestWebhook, type Json, type TestWebhook } from './workloads.ts';

let h: Harness;
let hook: TestWebhook;
const ns = 'rs';
const merge = { 'Content-Type': 'application/merge-patch+json' };
const generatedSuffix = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;

before(async () => {
  h = await startHarness({ simulation: { nodes: 0 } });
  hook = await startTestWebhook();
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
after(async () => {
  await h.stop();
  await hook.close();
});

const replicaSet = (name: string, replicas: number, extra: { template?: Json; spec?: Json } = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name }, ...(extra.template ?? {}) }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    ...(extra.spec ?? {}),
  },
});

const createReplicaSet = async (body: Json): Promise<Json> => {
  const res = await h.http('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, body);
  assert.equal(res.status, 201, res.text);
  return res.json;
};

const getReplicaSet = (name: string): Promise<Json> => getJson(h, `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);

/** The pods selected by `app=NAME`, by name. */
const podsOf = async (app: string): Promise<Json[]> => {
  const list = await getJson(h, `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return list.items.sort((a: Json, b: Json) => (a.metadata.name < b.metadata.name ? -1 : 1));
};
const activePodsOf = async (app: string): Promise<Json[]> => (await podsOf(app)).filter((p) => !p.metadata.deletionTimestamp);

const waitForPods = (app: string, count: number): Promise<Json[]> =>
  eventually(async () => {
    const pods = await activePodsOf(app);
    return pods.length === count ? pods : undefined;
  });

const eventsAbout = async (name: string): Promise<Json[]> =>
  (await getJson(h, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${name}`)).items;

const setPodStatus = (name: string, status: Json): Promise<unknown> => h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status }, merge);
const bind = (name: string): Promise<unknown> =>
  h.http('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'node-a' } });
const scale = (name: string, replicas: number): Promise<unknown> => h.http('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, { spec: { replicas } }, merge);
const ago = (seconds: number): string => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('ReplicaSet controller', () => {
  test('creates pods from the template with generateName, labels, annotations and a controller reference, and reports status and events', async () => {
    const rs = await createReplicaSet(replicaSet('web', 2, { template: { annotations: { note: 'x' } } }));
    const pods = await waitForPods('web', 2);
    for (const pod of pods) {
      assert.equal(pod.metadata.generateName, 'web-');
      assert.match(pod.metadata.name.slice(4), generatedSuffix);
      assert.deepEqual(pod.metadata.labels, { app: 'web' });
      assert.deepEqual(pod.metadata.annotations, { note: 'x' });
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const status = await eventually(async () => {
      const current = await getReplicaSet('web');
      return current.status?.observedGeneration === 1 && current.status.replicas === 2 ? current.status : undefined;
    });
    assert.deepEqual(status, { replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 });
    const events = await eventually(async () => {
      const found = (await eventsAbout('web')).filter((e) => e.reason === 'SuccessfulCreate');
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(events.map((e) => e.message).sort(), pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
    for (const event of events) {
      assert.equal(event.type, 'Normal');
      assert.deepEqual(event.source, { component: 'replicaset-controller' });
      assert.equal(event.reportingComponent, 'replicaset-controller');
      assert.equal(event.involvedObject.kind, 'ReplicaSet');
      assert.equal(event.involvedObject.uid, rs.metadata.uid);
      assert.match(event.metadata.name, /^web\.[0-9a-f]+$/);
    }

    // A deleted pod is replaced.
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/${pods[0].metadata.name}`);
    const replaced = await eventually(async () => {
      const current = await activePodsOf('web');
      return current.length === 2 && !current.some((p) => p.metadata.name === pods[0].metadata.name) ? current : undefined;
    });
    assert.equal(replaced.length, 2);
  });

  test('adopts a matching orphan and releases a pod whose labels stop matching', async () => {
    await h.http('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'orphan', labels: { app: 'adopt' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    const rs = await createReplicaSet(replicaSet('adopt', 2));
    const pods = await waitForPods('adopt', 2);
    const orphan = pods.find((p) => p.metadata.name === 'orphan');
    assert.deepEqual(orphan?.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'adopt', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);

    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/orphan`, { metadata: { labels: { app: 'elsewhere' } } }, merge);
    const released = await eventually(async () => {
      const pod = await getJson(h, `/api/v1/namespaces/${ns}/pods/orphan`);
      return (pod.metadata.ownerReferences ?? []).length === 0 ? pod : undefined;
    });
    assert.equal(released.metadata.labels.app, 'elsewhere');
    const owned = await waitForPods('adopt', 2);
    assert.ok(owned.every((p) => p.metadata.ownerReferences?.[0]?.uid === rs.metadata.uid));
  });

  test('counts ready pods, and available ones only after minReadySeconds', async () => {
    // Condition times have whole seconds, so a pod made ready "now" may already be up to 1 s old:
    // minReadySeconds leaves the read below 2 s of room on a slow machine.
    await createReplicaSet(replicaSet('avail', 2, { spec: { minReadySeconds: 3 } }));
    const [a, b] = await waitForPods('avail', 2);
    await setPodStatus(a.metadata.name, runningStatus(true, ago(0)));
    await setPodStatus(b.metadata.name, runningStatus(true, ago(60)));
    const status = await eventually(async () => {
      const current = (await getReplicaSet('avail')).status;
      return current?.readyReplicas === 2 ? current : undefined;
    });
    assert.equal(status.availableReplicas, 1, 'only the pod ready for more than minReadySeconds is available');
    // The controller checks again once minReadySeconds have passed.
    await eventually(async () => ((await getReplicaSet('avail')).status?.availableReplicas === 2 ? true : undefined), 6000);
  });

  test('scales down in the real order: unassigned, pending, not ready, lower deletion cost, more recently ready', async () => {
    await createReplicaSet(replicaSet('rank', 6));
    const pods = (await waitForPods('rank', 6)).map((p) => p.metadata.name as string);
    const [unassigned, pending, notReady, cheap, recent, old] = pods as [string, string, string, string, string, string];
    for (const name of pods.slice(1)) await bind(name);
    await setPodStatus(notReady, runningStatus(false));
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${cheap}`, { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-5' } } }, merge);
    await setPodStatus(cheap, runningStatus(true, ago(3600)));
    await setPodStatus(recent, runningStatus(true, ago(10)));
    await setPodStatus(old, runningStatus(true, ago(3600)));
    await eventually(async () => ((await getReplicaSet('rank')).status?.readyReplicas === 3 ? true : undefined));

    const deleted: string[] = [];
    for (let replicas = 5; replicas >= 1; replicas--) {
      await scale('rank', replicas);
      const active = await eventually(async () => {
        const current = await activePodsOf('rank');
        return current.length === replicas ? current.map((p) => p.metadata.name as string) : undefined;
      });
      deleted.push(...pods.filter((p) => !active.includes(p) && !deleted.includes(p)));
    }
    assert.deepEqual(deleted, [unassigned, pending, notReady, cheap, recent]);
    const bound = await getJson(h, `/api/v1/namespaces/${ns}/pods/${pending}`);
    assert.ok(bound.metadata.deletionTimestamp, 'a bound pod is deleted gracefully and waits for its kubelet');
  });

  test('a validating webhook that denies pod DELETE makes the scale-down retry, with backoff, until it allows', async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'hold-deletes' },
      webhooks: [
        {
          name: 'hold.podops.test',
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          rules: [{ operations: ['DELETE', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          objectSelector: { matchLabels: { app: 'held' } },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
        },
      ],
    };
    assert.equal((await h.http('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', config)).status, 201);
    let holding = true;
    hook.deny = (request) => (holding && request.operation === 'DELETE' ? 'held by the test' : undefined);
    await createReplicaSet(replicaSet('held', 2));
    await waitForPods('held', 2);

    await scale('held', 1);
    const denial = 'admission webhook "hold.podops.test" denied the request: held by the test';
    const failed = await eventually(async () => {
      const condition = (await getReplicaSet('held')).status?.conditions?.find((c: Json) => c.type === 'ReplicaFailure');
      return condition;
    });
    assert.equal(failed.status, 'True');
    assert.equal(failed.reason, 'FailedDelete');
    assert.equal(failed.message, `unable to delete pods: ${denial}`);
    const warning = await eventually(async () => (await eventsAbout('held')).find((e) => e.reason === 'FailedDelete'));
    assert.equal(warning.type, 'Warning');
    assert.equal(warning.message, `Error deleting: ${denial}`);
    // Retried with backoff while denied.
    await eventually(() => (hook.requests.filter((r) => r.operation === 'DELETE').length >= 3 ? true : undefined));
    assert.equal((await activePodsOf('held')).length, 2);

    holding = false;
    await waitForPods('held', 1);
    await eventually(async () => ((await getReplicaSet('held')).status?.conditions === undefined ? true : undefined));
    assert.ok((await eventsAbout('held')).some((e) => e.reason === 'SuccessfulDelete'));
    await h.http('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/hold-deletes');
  });

  test('a denied create records FailedCreate and a ReplicaFailure condition, and is retried until it succeeds', async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'deny-creates' },
      webhooks: [
        {
          name: 'quota.podops.test',
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          objectSelector: { matchLabels: { app: 'quota' } },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
        },
      ],
    };
    assert.equal((await h.http('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', config)).status, 201);
    let denying = true;
    hook.deny = (request) => (denying && request.operation === 'CREATE' ? 'over quota' : undefined);
    await createReplicaSet(replicaSet('quota', 3));
    const failed = await eventually(async () => (await getReplicaSet('quota')).status?.conditions?.find((c: Json) => c.type === 'ReplicaFailure'));
    assert.equal(failed.reason, 'FailedCreate');
    assert.equal(failed.message, 'admission webhook "quota.podops.test" denied the request: over quota');
    const warning = await eventually(async () => (await eventsAbout('quota')).find((e) => e.reason === 'FailedCreate'));
    assert.equal(warning.message, 'Error creating: admission webhook "quota.podops.test" denied the request: over quota');
    denying = false;
    await waitForPods('quota', 3);
    await eventually(async () => ((await getReplicaSet('quota')).status?.conditions === undefined ? true : undefined));
    await h.http('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/deny-creates');
  });
});
