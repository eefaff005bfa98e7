// The DaemonSet controller (kube-controller-manager's, in the sandbox): one pod per fitting node, pinned
// by node affinity for the scheduler, its ControllerRevisions, status and events on bare Node objects;
// then on simulated nodes the RollingUpdate strategy with maxUnavailable and maxSurge, OnDelete, and
// kubectl rollout (status, history, undo, restart; pause and resume refused).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import { getJson, type Json } from './workloads.ts';

const merge = { 'Content-Type': 'application/merge-patch+json' };

const daemonSet = (name: string, extra: { spec?: Json; template?: Json; podSpec?: Json } = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name }, ...(extra.template ?? {}) },
      spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...(extra.podSpec ?? {}) },
    },
    ...(extra.spec ?? {}),
  },
});

const dsPath = (ns: string, name = ''): string => `/apis/apps/v1/namespaces/${ns}/daemonsets${name ? `/${name}` : ''}`;

async function create(h: Harness, ns: string, body: Json): Promise<Json> {
  const res = await h.http('POST', dsPath(ns), body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}

async function podsOf(h: Harness, ns: string, app: string): Promise<Json[]> {
  const list = await getJson(h, `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return list.items;
}

/** The node each live pod is pinned to (by its node affinity, or its binding). */
const pinnedNode = (pod: Json): string =>
  pod.spec.nodeName ?? pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];

const daemonTolerations = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

describe('DaemonSets on bare Node objects (no scheduler, no kubelet)', () => {
  let h: Harness;
  const ns = 'ds-ref';
  before(async () => {
    h = await startHarness({ simulation: { nodes: 0 } });
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    for (const [name, disk] of [
      ['n1', 'ssd'],
      ['n2', 'ssd'],
      ['n3', 'hdd'],
    ] as const) {
      assert.equal((await h.http('POST', '/api/v1/nodes', { metadata: { name, labels: { disk } } })).status, 201);
    }
  });
  after(() => h.stop());

  test('a pod per fitting node, pinned by node affinity; the revision, the exact status and the events', async () => {
    const ds = await create(h, ns, daemonSet('agent', { podSpec: { nodeSelector: { disk: 'ssd' } } }));
    const pods = await eventually(async () => {
      const found = await podsOf(h, ns, 'agent');
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(pods.map(pinnedNode).sort(), ['n1', 'n2']);
    const [revision] = (await getJson(h, `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3Dagent`)).items;
    const hash = revision.metadata.labels['controller-revision-hash'];
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{7,10}$/);
    assert.equal(revision.metadata.name, `agent-${hash}`);
    assert.deepEqual(revision.metadata.labels, { app: 'agent', 'controller-revision-hash': hash });
    assert.deepEqual(revision.metadata.annotations, { 'deprecated.daemonset.template.generation': '1' });
    assert.equal(revision.revision, 1);
    assert.deepEqual(revision.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(revision.data.spec.template.$patch, 'replace');
    assert.deepEqual(revision.data.spec.template.spec.nodeSelector, { disk: 'ssd' });

    for (const pod of pods) {
      assert.match(pod.metadata.name, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(pod.metadata.generateName, 'agent-');
      assert.deepEqual(pod.metadata.labels, { app: 'agent', 'controller-revision-hash': hash, 'pod-template-generation': '1' });
      assert.equal(pod.spec.nodeName, undefined, 'the scheduler binds daemon pods');
      assert.deepEqual(pod.spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pinnedNode(pod)] }] }] } } });
      assert.deepEqual(pod.spec.tolerations, daemonTolerations);
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const raw = await eventually(async () => {
      const res = await h.http('GET', dsPath(ns, 'agent'));
      return res.json.status?.observedGeneration === 1 ? res.text : undefined;
    });
    assert.ok(
      raw.includes('"status":{"currentNumberScheduled":2,"numberMisscheduled":0,"desiredNumberScheduled":2,"numberReady":0,"observedGeneration":1,"updatedNumberScheduled":2,"numberUnavailable":2}'),
      raw,
    );
    const events = (await getJson(h, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dagent`)).items;
    assert.deepEqual(events.map((e: Json) => `${e.type} ${e.reason} ${e.message}`).sort(), pods.map((p) => `Normal SuccessfulCreate Created pod: ${p.metadata.name}`).sort());
    assert.deepEqual(events[0].source, { component: 'daemonset-controller' });
  });

  test('nodes that start or stop fitting gain or lose their pod; a NoExecute taint evicts, a NoSchedule one does not', async () => {
    await create(h, ns, daemonSet('follow', { podSpec: { nodeSelector: { disk: 'ssd' } } }));
    await eventually(async () => ((await podsOf(h, ns, 'follow')).length === 2 ? true : undefined));
    await h.http('PATCH', '/api/v1/nodes/n3', { metadata: { labels: { disk: 'ssd' } } }, merge);
    await eventually(async () => ((await podsOf(h, ns, 'follow')).map(pinnedNode).sort().join() === 'n1,n2,n3' ? true : undefined));
    await h.http('PATCH', '/api/v1/nodes/n3', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }, merge);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await podsOf(h, ns, 'follow')).length, 3, 'a pod already there tolerates the NoSchedule taint by staying');
    const status = await getJson(h, dsPath(ns, 'follow'));
    assert.equal(status.status.desiredNumberScheduled, 2);
    assert.equal(status.status.numberMisscheduled, 1);
    await h.http('PATCH', '/api/v1/nodes/n3', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } }, merge);
    await eventually(async () => ((await podsOf(h, ns, 'follow')).map(pinnedNode).sort().join() === 'n1,n2' ? true : undefined));
    await h.http('PATCH', '/api/v1/nodes/n3', { metadata: { labels: { disk: 'hdd' } }, spec: { taints: null } }, merge);
  });

  test('a pod at the template generation counts as updated whatever its hash: adopted pods of an orphaning DaemonSet of the same generation stay', async () => {
    // IsPodUpdated: the controller-revision-hash or, for compatibility, the pod-template-generation label.
    await create(h, ns, daemonSet('heir', { podSpec: { nodeSelector: { disk: 'ssd' } } }));
    const before = await eventually(async () => {
      const found = await podsOf(h, ns, 'heir');
      return found.length === 2 ? found : undefined;
    });
    await h.http('DELETE', dsPath(ns, 'heir'), { propagationPolicy: 'Orphan' });
    await eventually(async () => ((await h.http('GET', dsPath(ns, 'heir'))).status === 404 && (await podsOf(h, ns, 'heir')).every((p) => !p.metadata.ownerReferences) ? true : undefined));
    const heir = await create(h, ns, daemonSet('heir', { template: { annotations: { release: 'two' } }, podSpec: { nodeSelector: { disk: 'ssd' } } }));
    const status = await eventually(async () => {
      const s = (await getJson(h, dsPath(ns, 'heir'))).status;
      return s?.observedGeneration === 1 && (await podsOf(h, ns, 'heir')).every((p) => p.metadata.ownerReferences?.[0]?.uid === heir.metadata.uid) ? s : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const after = await podsOf(h, ns, 'heir');
    assert.deepEqual(after.map((p) => p.metadata.uid).sort(), before.map((p) => p.metadata.uid).sort(), 'adopted, not replaced');
    const [revision] = (await getJson(h, `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3Dheir`)).items.filter((r: Json) => r.metadata.ownerReferences?.[0]?.uid === heir.metadata.uid);
    assert.ok(after.every((p) => p.metadata.labels['controller-revision-hash'] !== revision.metadata.labels['controller-revision-hash'] && p.metadata.labels['pod-template-generation'] === '1'));
    assert.equal(status.updatedNumberScheduled, 2);
    await h.http('DELETE', dsPath(ns, 'heir'));
  });

  test('a failed daemon pod is deleted, with an event, and replaced', async () => {
    await create(h, ns, daemonSet('crash', { podSpec: { nodeSelector: { disk: 'hdd' } } }));
    const [pod] = await eventually(async () => {
      const found = await podsOf(h, ns, 'crash');
      return found.length === 1 ? found : undefined;
    });
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, { status: { phase: 'Failed' } }, merge);
    await eventually(async () => {
      const found = await podsOf(h, ns, 'crash');
      return found.length === 1 && found[0].metadata.uid !== pod.metadata.uid ? true : undefined;
    });
    const events = (await getJson(h, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dcrash`)).items;
    const failed = events.find((e: Json) => e.reason === 'FailedDaemonPod');
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, `Found failed daemon pod ${ns}/${pod.metadata.name} on node n3, will try to kill it`);
  });
});

describe('DaemonSets on simulated nodes', () => {
  let h: Harness;
  const ns = 'ds';
  before(async () => {
    h = await startHarness({ simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => h.stop());

  const statusOf = async (name: string): Promise<Json> => (await getJson(h, dsPath(ns, name))).status ?? {};
  const rolledOut = (name: string) =>
    eventually(async () => {
      const s = await statusOf(name);
      return s.desiredNumberScheduled === 3 && s.numberAvailable === 3 && s.updatedNumberScheduled === 3 ? s : undefined;
    }, 10_000);
  /** Pods by node, each as `new` or `old` against the current revision hash. */
  const revisionsByNode = async (app: string, hash: string): Promise<string[]> =>
    (await podsOf(h, ns, app))
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => `${p.spec.nodeName}:${p.metadata.labels['controller-revision-hash'] === hash ? 'new' : 'old'}`)
      .sort();
  const currentHash = async (app: string): Promise<string> => {
    const revisions = (await getJson(h, `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3D${app}`)).items;
    const newest = revisions.sort((a: Json, b: Json) => b.revision - a.revision)[0];
    return newest.metadata.labels['controller-revision-hash'];
  };
  // New pods that never become ready hold a rolling update where its limits stop it.
  const stuckTemplate = { spec: { template: { metadata: { annotations: { 'sandbox.podops.io/ready': 'false' } } } } };

  test('RollingUpdate with maxUnavailable 2 of 3 replaces two pods and waits while their replacements are unavailable', async () => {
    await create(h, ns, daemonSet('unavail', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } } }));
    await rolledOut('unavail');
    await h.http('PATCH', dsPath(ns, 'unavail'), stuckTemplate, merge);
    const status = await eventually(async () => {
      const s = await statusOf('unavail');
      return s.observedGeneration === 2 && s.updatedNumberScheduled === 2 && s.currentNumberScheduled === 3 ? s : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const hash = await currentHash('unavail');
    assert.deepEqual((await revisionsByNode('unavail', hash)).map((s) => s.split(':')[1]).sort(), ['new', 'new', 'old']);
    assert.equal(status.numberUnavailable, 2);
    assert.equal(status.numberReady, 1);
  });

  test('RollingUpdate with maxSurge 1 starts one new pod beside an old one and keeps the old until the new is available', async () => {
    await create(h, ns, daemonSet('surge', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } } }));
    await rolledOut('surge');
    await h.http('PATCH', dsPath(ns, 'surge'), stuckTemplate, merge);
    await eventually(async () => ((await podsOf(h, ns, 'surge')).length === 4 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const hash = await currentHash('surge');
    const byNode = await revisionsByNode('surge', hash);
    assert.equal(byNode.length, 4);
    assert.deepEqual(byNode.filter((s) => s.endsWith(':new')).length, 1);
    const surgedNode = byNode.find((s) => s.endsWith(':new'))?.split(':')[0];
    assert.ok(byNode.includes(`${surgedNode}:old`), 'the old pod stays beside its unavailable replacement');
    assert.equal((await statusOf('surge')).currentNumberScheduled, 3);

    // Once the new pod is available the old one goes, and the next node surges.
    const fresh = (await podsOf(h, ns, 'surge')).find((p) => p.metadata.labels['controller-revision-hash'] === hash);
    await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${fresh.metadata.name}`, { metadata: { annotations: { 'sandbox.podops.io/ready': 'true' } } }, merge);
    await eventually(async () => {
      const now = await revisionsByNode('surge', hash);
      return now.length === 4 && now.filter((s) => s.endsWith(':new')).length === 2 && !now.includes(`${surgedNode}:old`) ? true : undefined;
    });
  });

  test('OnDelete keeps the old pods until they are deleted; the replacement gets the new template', async () => {
    await create(h, ns, daemonSet('ondel', { spec: { updateStrategy: { type: 'OnDelete' } } }));
    await rolledOut('ondel');
    const oldHash = await currentHash('ondel');
    await h.http('PATCH', dsPath(ns, 'ondel'), { spec: { template: { metadata: { annotations: { release: 'two' } } } } }, merge);
    await eventually(async () => ((await statusOf('ondel')).observedGeneration === 2 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const hash = await currentHash('ondel');
    assert.notEqual(hash, oldHash);
    assert.deepEqual(await revisionsByNode('ondel', hash), ['node-1:old', 'node-2:old', 'node-3:old']);
    assert.equal((await statusOf('ondel')).updatedNumberScheduled ?? 0, 0);
    const victim = (await podsOf(h, ns, 'ondel')).find((p) => p.spec.nodeName === 'node-2');
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`);
    await eventually(async () => ((await revisionsByNode('ondel', hash)).join() === 'node-1:old,node-2:new,node-3:old' ? true : undefined));
    const replacement = (await podsOf(h, ns, 'ondel')).find((p) => p.spec.nodeName === 'node-2' && !p.metadata.deletionTimestamp);
    assert.equal(replacement.metadata.annotations.release, 'two');
    assert.equal(replacement.metadata.labels['pod-template-generation'], '2');
    await eventually(async () => ((await statusOf('ondel')).updatedNumberScheduled === 1 ? true : undefined));
  });

  test('OnDelete, then RollingUpdate: the remaining old pods are replaced; kubectl rollout undo reuses the first revision', { skip: skipWithoutKubectl }, async () => {
    await create(h, ns, daemonSet('switch', { spec: { updateStrategy: { type: 'OnDelete' } } }));
    await rolledOut('switch');
    const oldHash = await currentHash('switch');
    await h.http('PATCH', dsPath(ns, 'switch'), { spec: { template: { metadata: { annotations: { release: 'two' } } } } }, merge);
    await eventually(async () => ((await statusOf('switch')).observedGeneration === 2 ? true : undefined));
    const hash = await currentHash('switch');
    assert.notEqual(hash, oldHash);
    const victim = (await podsOf(h, ns, 'switch')).find((p) => p.spec.nodeName === 'node-3');
    await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`);
    await eventually(async () => ((await revisionsByNode('switch', hash)).join() === 'node-1:old,node-2:old,node-3:new' ? true : undefined));
    await eventually(async () => ((await statusOf('switch')).updatedNumberScheduled === 1 ? true : undefined));

    // The strategy is not the template: the generation moves, the template generation stays 2.
    await h.http('PATCH', dsPath(ns, 'switch'), { spec: { updateStrategy: { type: 'RollingUpdate' } } }, merge);
    const rolled = await rolledOut('switch');
    assert.equal(rolled.observedGeneration, 3);
    const ds = await getJson(h, dsPath(ns, 'switch'));
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '2');
    const pods = (await podsOf(h, ns, 'switch')).filter((p) => !p.metadata.deletionTimestamp);
    assert.deepEqual(pods.map((p) => `${p.spec.nodeName}:${p.metadata.labels['controller-revision-hash']}:${p.metadata.labels['pod-template-generation']}`).sort(), [
      `node-1:${hash}:2`,
      `node-2:${hash}:2`,
      `node-3:${hash}:2`,
    ]);

    const undo = await h.kubectl(['-n', ns, 'rollout', 'undo', 'daemonset/switch']);
    assert.equal(undo.stdout, 'daemonset.apps/switch rolled back\n', undo.stderr);
    await eventually(async () => ((await revisionsByNode('switch', oldHash)).join() === 'node-1:new,node-2:new,node-3:new' ? true : undefined), 10_000);
    const revisions = (await getJson(h, `/apis/apps/v1/namespaces/${ns}/controllerrevisions?labelSelector=app%3Dswitch`)).items;
    assert.deepEqual(revisions.map((r: Json) => [r.metadata.labels['controller-revision-hash'], r.revision]).sort((a: Json, b: Json) => a[1] - b[1]), [
      [hash, 2],
      [oldHash, 3],
    ]);
    // The template generation counts template changes (1, 2, and the undo 3), not the generation (4).
    const rewound = (await podsOf(h, ns, 'switch')).filter((p) => !p.metadata.deletionTimestamp);
    assert.ok(rewound.every((p) => p.metadata.labels['pod-template-generation'] === '3' && p.metadata.annotations?.release === undefined));
    assert.equal((await getJson(h, dsPath(ns, 'switch'))).metadata.generation, 4);
  });

  test('kubectl rollout status, history and undo', { skip: skipWithoutKubectl }, async () => {
    await create(h, ns, daemonSet('roll'));
    const status = await h.kubectl(['-n', ns, 'rollout', 'status', 'daemonset/roll', '--timeout=20s']);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(status.stdout.trim().split('\n').pop(), 'daemon set "roll" successfully rolled out');
    assert.equal((await h.kubectl(['-n', ns, 'set', 'image', 'daemonset/roll', 'c=nginx:1.28'])).code, 0);
    assert.equal((await h.kubectl(['-n', ns, 'rollout', 'status', 'daemonset/roll', '--timeout=20s'])).code, 0);
    const history = await h.kubectl(['-n', ns, 'rollout', 'history', 'daemonset/roll']);
    assert.equal(history.stdout, 'daemonset.apps/roll \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n');
    const undo = await h.kubectl(['-n', ns, 'rollout', 'undo', 'daemonset/roll', '--to-revision=1']);
    assert.equal(undo.stdout, 'daemonset.apps/roll rolled back\n');
    await eventually(async () => {
      const pods = await podsOf(h, ns, 'roll');
      return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.27' && p.status.phase === 'Running') ? true : undefined;
    }, 10_000);
    const rewound = await h.kubectl(['-n', ns, 'rollout', 'history', 'daemonset/roll']);
    assert.equal(rewound.stdout, 'daemonset.apps/roll \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n');
  });

  test('kubectl rollout restart replaces every pod; pause and resume are refused', { skip: skipWithoutKubectl }, async () => {
    await create(h, ns, daemonSet('restart'));
    await rolledOut('restart');
    const before = new Set((await podsOf(h, ns, 'restart')).map((p) => p.metadata.uid));
    const restart = await h.kubectl(['-n', ns, 'rollout', 'restart', 'daemonset/restart']);
    assert.equal(restart.code, 0, restart.stderr);
    assert.equal(restart.stdout, 'daemonset.apps/restart restarted\n');
    const status = await h.kubectl(['-n', ns, 'rollout', 'status', 'daemonset/restart', '--timeout=20s']);
    assert.equal(status.code, 0, status.stderr);
    const pods = await eventually(async () => {
      const now = (await podsOf(h, ns, 'restart')).filter((p) => !p.metadata.deletionTimestamp);
      return now.length === 3 && now.every((p) => !before.has(p.metadata.uid) && p.status.phase === 'Running') ? now : undefined;
    }, 10_000);
    const restartedAt = pods[0].metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
    assert.ok(restartedAt, 'the new pods carry the restart annotation of the template');
    assert.ok(pods.every((p) => p.metadata.annotations['kubectl.kubernetes.io/restartedAt'] === restartedAt));
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3']);

    const pause = await h.kubectl(['-n', ns, 'rollout', 'pause', 'daemonset/restart']);
    assert.notEqual(pause.code, 0);
    assert.match(pause.stderr, /daemonsets.apps "restart" pausing is not supported/);
    const resume = await h.kubectl(['-n', ns, 'rollout', 'resume', 'daemonset/restart']);
    assert.notEqual(resume.code, 0);
    assert.match(resume.stderr, /daemonsets.apps "restart" resuming is not supported/);
  });
});
