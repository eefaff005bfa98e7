// The Deployment controller (kube-controller-manager's, in the sandbox), against the observations of
// the reference (section L.1: names, hashes, annotations, status, paused, old ReplicaSet reuse,
// events), and its rollouts: RollingUpdate within maxSurge/maxUnavailable at every step, Recreate,
// proportional scaling, the progress deadline, revision history, and kubectl's rollout commands.
// Namespaces without a stand-in kubelet keep their pods Pending, as in the reference cluster.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import { fakeKubelet, getJson, replicaSets, runningStatus, watchStream, type Json, type ReplicaSetState, type WatchStream } from './workloads.ts';

let h: Harness;
const kubelets: WatchStream[] = [];
const merge = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  h = await startHarness({ simulation: { nodes: 0 } });
});
after(async () => {
  for (const kubelet of kubelets) kubelet.stop();
  await h.stop();
});

const namespace = async (name: string, withKubelet: boolean, node?: string): Promise<void> => {
  await h.http('POST', '/api/v1/namespaces', { metadata: { name } });
  if (withKubelet) kubelets.push(fakeKubelet(h, name, node ? { node } : {}));
};

const deploymentPath = (ns: string, name = ''): string => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;
const getDeployment = (ns: string, name: string, harness = h): Promise<Json> => getJson(harness, deploymentPath(ns, name));
const patchDeployment = async (ns: string, name: string, patch: Json): Promise<Json> => {
  const res = await h.http('PATCH', deploymentPath(ns, name), patch, merge);
  assert.equal(res.status, 200, res.text);
  return res.json;
};
const getReplicaSet = (ns: string, name: string): Promise<Json> => getJson(h, `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);
const image = (tag: string): Json => ({ spec: { template: { spec: { containers: [{ name: 'c', image: tag }] } } } });

const deployment = (name: string, spec: Json = {}): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
    ...spec,
  },
});

const createDeployment = async (ns: string, body: Json): Promise<Json> => {
  const res = await h.http('POST', deploymentPath(ns), body);
  assert.equal(res.status, 201, res.text);
  return res.json;
};

/** Waits until the Deployment reports its rollout complete (as `kubectl rollout status` decides it). */
const rolledOut = (ns: string, name: string, harness = h, timeoutMs?: number): Promise<Json> =>
  eventually(async () => {
    const d = await getDeployment(ns, name, harness);
    const s = d.status ?? {};
    const done = s.observedGeneration >= d.metadata.generation && s.updatedReplicas === d.spec.replicas && s.replicas === d.spec.replicas && s.availableReplicas === d.spec.replicas;
    return done ? d : undefined;
  }, timeoutMs);

const withoutTimes = (conditions: Json[]): Json[] =>
  conditions.map((c) => {
    assert.match(c.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(c.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const { lastUpdateTime: _u, lastTransitionTime: _t, ...rest } = c;
    return rest;
  });

const events = async (ns: string, involved: string, harness = h): Promise<Json[]> =>
  (await getJson(harness, `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${involved}`)).items;

describe('Deployment: the reference observations (no kubelet)', () => {
  const ns = 'probe';
  before(() => namespace(ns, false));

  test('web: ReplicaSet web-697bdf56bb, annotations, pods, status and events as a real cluster shows them', async () => {
    const created = await createDeployment(ns, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { team: 'a' }, annotations: { note: 'x' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' }, annotations: { tmpl: 'y' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      },
    });
    const rs = await eventually(async () => {
      const found = await h.http('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web-697bdf56bb`);
      return found.status === 200 && found.json.status?.observedGeneration === 1 && found.json.status.replicas === 2 ? found.json : undefined;
    });
    assert.deepEqual(rs.metadata.labels, { app: 'web', 'pod-template-hash': '697bdf56bb' });
    assert.deepEqual(rs.metadata.annotations, {
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
      'deployment.kubernetes.io/revision': '1',
      note: 'x',
    });
    assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(rs.spec.selector, { matchLabels: { app: 'web', 'pod-template-hash': '697bdf56bb' } });
    assert.deepEqual(rs.spec.template.metadata.labels, { app: 'web', 'pod-template-hash': '697bdf56bb' });
    assert.deepEqual(rs.status, { replicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 });

    const pods = (await getJson(h, `/api/v1/namespaces/${ns}/pods`)).items;
    assert.equal(pods.length, 2);
    for (const pod of pods) {
      assert.equal(pod.metadata.generateName, 'web-697bdf56bb-');
      assert.match(pod.metadata.name, /^web-697bdf56bb-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual(pod.metadata.labels, { app: 'web', 'pod-template-hash': '697bdf56bb' });
      assert.deepEqual(pod.metadata.annotations, { tmpl: 'y' });
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-697bdf56bb', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.equal(pod.status.phase, 'Pending');
    }

    const d = await eventually(async () => {
      const current = await getDeployment(ns, 'web');
      return current.status?.conditions?.length === 2 && current.status.conditions[1].reason === 'ReplicaSetUpdated' ? current : undefined;
    });
    assert.equal(d.metadata.generation, 1, 'the revision annotation is written through /status');
    assert.deepEqual(d.metadata.annotations, { note: 'x', 'deployment.kubernetes.io/revision': '1' });
    assert.deepEqual(Object.keys(d.status), ['observedGeneration', 'replicas', 'updatedReplicas', 'unavailableReplicas', 'conditions']);
    assert.deepEqual({ ...d.status, conditions: withoutTimes(d.status.conditions) }, {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      unavailableReplicas: 2,
      conditions: [
        { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
        { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'ReplicaSet "web-697bdf56bb" is progressing.' },
      ],
    });

    const scaled = await eventually(async () => (await events(ns, 'web')).find((e) => e.reason === 'ScalingReplicaSet'));
    assert.equal(scaled.message, 'Scaled up replica set web-697bdf56bb from 0 to 2');
    assert.match(scaled.metadata.name, /^web\.[0-9a-f]{16,}$/);
    assert.deepEqual(scaled.involvedObject, { kind: 'Deployment', namespace: ns, name: 'web', uid: created.metadata.uid, apiVersion: 'apps/v1', resourceVersion: scaled.involvedObject.resourceVersion });
    assert.deepEqual(
      { source: scaled.source, count: scaled.count, type: scaled.type, eventTime: scaled.eventTime, reportingComponent: scaled.reportingComponent, reportingInstance: scaled.reportingInstance },
      { source: { component: 'deployment-controller' }, count: 1, type: 'Normal', eventTime: null, reportingComponent: 'deployment-controller', reportingInstance: '' },
    );
    const v1Event = await getJson(h, `/apis/events.k8s.io/v1/namespaces/${ns}/events/${scaled.metadata.name}`);
    assert.equal(v1Event.reportingController, 'deployment-controller');
    assert.equal(v1Event.note, 'Scaled up replica set web-697bdf56bb from 0 to 2');

    // Paused: generation +1 and Progressing Unknown DeploymentPaused.
    const paused = await patchDeployment(ns, 'web', { spec: { paused: true } });
    assert.equal(paused.metadata.generation, 2);
    const pausedStatus = await eventually(async () => {
      const current = await getDeployment(ns, 'web');
      return current.status.observedGeneration === 2 ? current.status : undefined;
    });
    const progressing = pausedStatus.conditions.find((c: Json) => c.type === 'Progressing');
    assert.deepEqual(withoutTimes([progressing]), [{ type: 'Progressing', status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' }]);

    // Paused + template change: no new ReplicaSet, updatedReplicas gone, revision stays 1.
    await patchDeployment(ns, 'web', image('nginx:2'));
    const changed = await eventually(async () => {
      const current = await getDeployment(ns, 'web');
      return current.status.observedGeneration === 3 ? current : undefined;
    });
    assert.equal(changed.status.updatedReplicas, undefined);
    assert.equal(changed.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual((await replicaSets(h, ns)).map((r) => r.name), ['web-697bdf56bb']);

    // Paused + replicas 3: the existing ReplicaSet is scaled.
    await patchDeployment(ns, 'web', { spec: { replicas: 3 } });
    const scaledRs = await eventually(async () => {
      const current = await getReplicaSet(ns, 'web-697bdf56bb');
      return current.spec.replicas === 3 ? current : undefined;
    });
    assert.equal(scaledRs.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '3');
    assert.equal(scaledRs.metadata.annotations['deployment.kubernetes.io/max-replicas'], '4');
    assert.deepEqual((await replicaSets(h, ns)).map((r) => r.name), ['web-697bdf56bb']);

    // Resume: the new ReplicaSet web-68bcbd5f85 with revision 2; rolling: new 1, old 3, 4 replicas.
    await patchDeployment(ns, 'web', { spec: { paused: false } });
    const rolling = await eventually(async () => {
      const sets = await replicaSets(h, ns);
      const current = await getDeployment(ns, 'web');
      return sets.length === 2 && sets[1]?.replicas === 1 && current.status.replicas === 4 ? { sets, current } : undefined;
    });
    assert.deepEqual(
      rolling.sets.map((r) => [r.name, r.revision, r.replicas]),
      [
        ['web-697bdf56bb', '1', 3],
        ['web-68bcbd5f85', '2', 1],
      ],
    );
    assert.equal(rolling.current.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    const created2 = await eventually(async () => (await events(ns, 'web-68bcbd5f85')).find((e) => e.reason === 'SuccessfulCreate'));
    assert.match(created2.message, /^Created pod: web-68bcbd5f85-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(created2.source, { component: 'replicaset-controller' });

    // Back to nginx:1: the old ReplicaSet is reused with revision 3 and revision-history 1.
    await patchDeployment(ns, 'web', image('nginx:1'));
    const reused = await eventually(async () => {
      const current = await getReplicaSet(ns, 'web-697bdf56bb');
      return current.metadata.annotations['deployment.kubernetes.io/revision'] === '3' ? current : undefined;
    });
    assert.equal(reused.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    assert.equal((await replicaSets(h, ns)).length, 2);
    await eventually(async () => ((await getDeployment(ns, 'web')).metadata.annotations['deployment.kubernetes.io/revision'] === '3' ? true : undefined));
  });

  test('proportional scaling: a scale during a stuck rollout is shared by the ReplicaSets in proportion', async () => {
    const ns2 = 'prop';
    await namespace(ns2, false);
    await createDeployment(ns2, deployment('prop', { replicas: 10, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }));
    await eventually(async () => ((await replicaSets(h, ns2))[0]?.status.replicas === 10 ? true : undefined));
    await patchDeployment(ns2, 'prop', image('nginx:2'));
    // No pod ever becomes ready: the rollout stops at maxSurge and maxUnavailable, old 8 and new 5.
    const stuck = await eventually(async () => {
      const sets = await replicaSets(h, ns2);
      return sets.length === 2 && sets[0]?.replicas === 8 && sets[1]?.replicas === 5 ? sets : undefined;
    });
    assert.equal(stuck.length, 2);
    await patchDeployment(ns2, 'prop', { spec: { replicas: 20 } });
    const up = await eventually(async () => {
      const sets = await replicaSets(h, ns2);
      return sets[0]?.replicas === 14 && sets[1]?.replicas === 9 ? sets : undefined;
    });
    assert.deepEqual(
      up.map((r) => r.replicas),
      [14, 9],
    );
    // Scaling down takes the same shares (the rollout then goes on from there).
    await patchDeployment(ns2, 'prop', { spec: { replicas: 5 } });
    const [oldName, newName] = up.map((r) => r.name);
    const expected = [
      `Scaled up replica set ${oldName} from 8 to 14`,
      `Scaled up replica set ${newName} from 5 to 9`,
      `Scaled down replica set ${oldName} from 14 to 5`,
      `Scaled down replica set ${newName} from 9 to 3`,
    ];
    await eventually(async () => {
      const messages = (await events(ns2, 'prop')).map((e) => e.message);
      return expected.every((m) => messages.includes(m)) ? true : undefined;
    });
  });

  test('progressDeadlineSeconds: no progress turns Progressing False with ProgressDeadlineExceeded', { skip: skipWithoutKubectl }, async () => {
    const ns3 = 'deadline';
    await namespace(ns3, false);
    await createDeployment(ns3, deployment('slow', { replicas: 1, progressDeadlineSeconds: 1 }));
    const condition = await eventually(async () => {
      const d = await getDeployment(ns3, 'slow');
      const found = d.status?.conditions?.find((c: Json) => c.type === 'Progressing' && c.status === 'False');
      return found;
    }, 6000);
    const rsName = (await replicaSets(h, ns3))[0]?.name;
    assert.deepEqual(withoutTimes([condition]), [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` }]);
    const status = await h.kubectl(['rollout', 'status', 'deployment/slow', '-n', ns3, '--timeout=10s']);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /error: deployment "slow" exceeded its progress deadline/);
  });
});

describe('Deployment rollouts (pods made ready by a stand-in kubelet that can hold terminations)', () => {
  test('Recreate scales the old ReplicaSet to zero and creates the new one only once the old pods are gone', async () => {
    const ns = 'recreate';
    let hold = false;
    await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    kubelets.push(fakeKubelet(h, ns, { node: 'node-a', holdTerminating: () => hold }));
    await createDeployment(ns, deployment('rec', { strategy: { type: 'Recreate' } }));
    await rolledOut(ns, 'rec');
    hold = true;
    await patchDeployment(ns, 'rec', image('nginx:2'));
    const [old] = await eventually(async () => {
      const sets = await replicaSets(h, ns);
      return sets[0]?.replicas === 0 ? sets : undefined;
    });
    const terminating = await eventually(async () => {
      const pods = (await getJson(h, `/api/v1/namespaces/${ns}/pods`)).items;
      return pods.length === 2 && pods.every((p: Json) => p.metadata.deletionTimestamp) ? pods : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await replicaSets(h, ns)).length, 1, 'no new ReplicaSet while old pods are terminating');
    hold = false;
    for (const pod of terminating) await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`, { gracePeriodSeconds: 0 });
    await rolledOut(ns, 'rec');
    const sets = await replicaSets(h, ns);
    assert.deepEqual(
      sets.map((r) => r.replicas),
      [0, 2],
    );
    const messages = (await events(ns, 'rec')).map((e) => e.message);
    assert.ok(messages.includes(`Scaled down replica set ${old?.name} from 2 to 0`), JSON.stringify(messages));
    assert.ok(messages.includes(`Scaled up replica set ${sets[1]?.name} from 0 to 2`), JSON.stringify(messages));
  });

  test('revisionHistoryLimit deletes the oldest empty ReplicaSets', async () => {
    const ns = 'history';
    await namespace(ns, true);
    await createDeployment(ns, deployment('hist', { revisionHistoryLimit: 1 }));
    await rolledOut(ns, 'hist');
    for (const tag of ['nginx:2', 'nginx:3']) {
      await patchDeployment(ns, 'hist', image(tag));
      await rolledOut(ns, 'hist');
    }
    const sets = await eventually(async () => {
      const current = await replicaSets(h, ns);
      return current.length === 2 ? current : undefined;
    });
    assert.deepEqual(
      sets.map((r) => [r.revision, r.replicas]),
      [
        ['2', 0],
        ['3', 2],
      ],
    );
  });
});

describe('Deployment rollouts held and stepped (pods reported Ready by the test, as podops holds them)', () => {
  const ns = 'held';
  before(() => namespace(ns, false));

  const isReady = (pod: Json): boolean => pod.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True') === true;
  /** Reports every live pod of the namespace that is not Ready yet Running and Ready, as its kubelet would. */
  const readyAll = async (): Promise<void> => {
    for (const pod of (await getJson(h, `/api/v1/namespaces/${ns}/pods`)).items) {
      if (pod.metadata.deletionTimestamp || isReady(pod)) continue;
      await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, { status: runningStatus(true) }, merge);
    }
  };
  const specSizes = async (): Promise<number[]> => (await replicaSets(h, ns)).map((r) => r.replicas);
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));
  const progressing = (d: Json): string => {
    const c = d.status?.conditions?.find((x: Json) => x.type === 'Progressing');
    return c ? `${c.status} ${c.reason}` : 'none';
  };

  /** The spec.replicas of the [old, new] ReplicaSets each time one changes, from a watch. */
  const recordSizes = (oldName: string): { steps: number[][]; connected: Promise<void>; stop(): void } => {
    const sizes = new Map<string, number>();
    const steps: number[][] = [];
    const stream = watchStream(h, `/apis/apps/v1/namespaces/${ns}/replicasets`, (_type, rs) => {
      sizes.set(rs.metadata.name, rs.spec.replicas);
      const newName = [...sizes.keys()].find((n) => n !== oldName);
      const step = [sizes.get(oldName) ?? 0, newName ? (sizes.get(newName) ?? 0) : 0];
      if (step.join() !== steps.at(-1)?.join()) steps.push(step);
    });
    return { steps, connected: stream.connected, stop: () => stream.stop() };
  };

  test('paused with the template change: no new ReplicaSet; resumed: maxSurge 1 / maxUnavailable 0 one pod at a time; paused again: frozen; scaled while paused: in proportion', async () => {
    await createDeployment(ns, deployment('hold', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const first = await eventually(async () => {
      const [only] = await replicaSets(h, ns);
      return only?.status.replicas === 4 ? only : undefined;
    });
    await readyAll();
    await rolledOut(ns, 'hold');
    const conditions: string[] = [];
    const deploymentWatch = watchStream(h, `${deploymentPath(ns)}?fieldSelector=metadata.name%3Dhold`, (_type, d) => {
      if (progressing(d) !== conditions.at(-1)) conditions.push(progressing(d));
    });
    const sizes = recordSizes(first.name);
    await Promise.all([deploymentWatch.connected, sizes.connected]);

    // The freeze comes in the same write as the template (what podops' mutating webhook does).
    await patchDeployment(ns, 'hold', { spec: { paused: true, ...image('nginx:2').spec } });
    const paused = await eventually(async () => {
      const d = await getDeployment(ns, 'hold');
      return d.status.observedGeneration === 2 ? d : undefined;
    });
    assert.equal(progressing(paused), 'Unknown DeploymentPaused');
    assert.equal(paused.status.updatedReplicas, undefined, 'no ReplicaSet has the new template');
    assert.equal(paused.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    await settle();
    assert.deepEqual(await specSizes(), [4], 'no new ReplicaSet while paused');

    // Resumed: the new ReplicaSet (revision 2) starts at maxSurge; the old one waits for it to be available.
    await patchDeployment(ns, 'hold', { spec: { paused: false } });
    await eventually(async () => ((await specSizes()).join() === '4,1' ? true : undefined));
    await settle();
    const [, second] = await replicaSets(h, ns);
    assert.equal(second?.revision, '2');
    assert.deepEqual(await specSizes(), [4, 1], 'the old ReplicaSet keeps its pods while the new pod is not available');
    await readyAll();
    await eventually(async () => ((await specSizes()).join() === '3,2' ? true : undefined));

    // Paused again while the second new pod is not Ready: once it is, nothing moves.
    await patchDeployment(ns, 'hold', { spec: { paused: true } });
    await eventually(async () => (progressing(await getDeployment(ns, 'hold')) === 'Unknown DeploymentPaused' ? true : undefined));
    await readyAll();
    await eventually(async () => ((await getReplicaSet(ns, second?.name ?? '')).status.availableReplicas === 2 ? true : undefined));
    await settle();
    assert.deepEqual(await specSizes(), [3, 2], 'frozen where it was');

    // Scaled while paused: 8 replicas, max 9, shared in proportion to each size against max-replicas 5.
    await patchDeployment(ns, 'hold', { spec: { replicas: 8 } });
    await eventually(async () => ((await specSizes()).join() === '5,4' ? true : undefined));
    for (const rs of await replicaSets(h, ns)) {
      const annotations = (await getReplicaSet(ns, rs.name)).metadata.annotations;
      assert.equal(annotations['deployment.kubernetes.io/desired-replicas'], '8');
      assert.equal(annotations['deployment.kubernetes.io/max-replicas'], '9');
    }
    await readyAll();
    await eventually(async () => ((await getDeployment(ns, 'hold')).status.availableReplicas === 9 ? true : undefined));
    await settle();
    assert.deepEqual(await specSizes(), [5, 4]);

    // Resumed: one old pod goes per new pod available, never more than 9 pods.
    await patchDeployment(ns, 'hold', { spec: { paused: false } });
    await eventually(async () => {
      await readyAll();
      const d = await getDeployment(ns, 'hold');
      return d.status.observedGeneration === d.metadata.generation && d.status.updatedReplicas === 8 && d.status.availableReplicas === 8 && d.status.replicas === 8 ? true : undefined;
    }, 10_000);
    await eventually(async () => (progressing(await getDeployment(ns, 'hold')) === 'True NewReplicaSetAvailable' ? true : undefined));
    sizes.stop();
    deploymentWatch.stop();
    assert.deepEqual(sizes.steps, [
      [4, 0],
      [4, 1],
      [3, 1],
      [3, 2],
      [5, 2],
      [5, 4],
      [4, 4],
      [4, 5],
      [3, 5],
      [3, 6],
      [2, 6],
      [2, 7],
      [1, 7],
      [1, 8],
      [0, 8],
    ]);
    assert.deepEqual(conditions, [
      'True NewReplicaSetAvailable',
      'Unknown DeploymentPaused',
      'Unknown DeploymentResumed',
      'True ReplicaSetUpdated',
      'Unknown DeploymentPaused',
      'Unknown DeploymentResumed',
      'True ReplicaSetUpdated',
      'True NewReplicaSetAvailable',
    ]);
  });

  test('paused for longer than progressDeadlineSeconds: no deadline while paused; after resume it counts from the resume', async () => {
    await createDeployment(ns, deployment('patient', { replicas: 1, progressDeadlineSeconds: 1 }));
    await eventually(async () => ((await replicaSets(h, ns)).some((r) => r.name.startsWith('patient-') && r.status.replicas === 1) ? true : undefined));
    await readyAll();
    await rolledOut(ns, 'patient');
    await patchDeployment(ns, 'patient', { spec: { paused: true, ...image('nginx:2').spec } });
    await eventually(async () => (progressing(await getDeployment(ns, 'patient')) === 'Unknown DeploymentPaused' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(progressing(await getDeployment(ns, 'patient')), 'Unknown DeploymentPaused');
    await patchDeployment(ns, 'patient', { spec: { paused: false } });
    // Condition times have whole seconds: the deadline counts from the second of the resume.
    const resumedSecond = Math.floor(Date.now() / 1000) * 1000;
    // The new pod never becomes Ready: the deadline passes about a second after the resume.
    const timedOut = await eventually(async () => {
      const d = await getDeployment(ns, 'patient');
      return progressing(d) === 'False ProgressDeadlineExceeded' ? d : undefined;
    }, 6000);
    assert.ok(Date.now() > resumedSecond + 1000, `timed out ${Date.now() - resumedSecond} ms after the second of the resume`);
    assert.equal(timedOut.status.conditions.find((c: Json) => c.type === 'Progressing').message, `ReplicaSet "${(await replicaSets(h, ns)).filter((r) => r.name.startsWith('patient-'))[1]?.name}" has timed out progressing.`);
  });

  test('a change of maxSurge or maxUnavailable mid-rollout applies at the next sync', async () => {
    await createDeployment(ns, deployment('retune', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const mine = async (): Promise<ReplicaSetState[]> => (await replicaSets(h, ns)).filter((r) => r.name.startsWith('retune-'));
    const [first] = await eventually(async () => {
      const sets = await mine();
      return sets[0]?.status.replicas === 4 ? sets : undefined;
    });
    await readyAll();
    await rolledOut(ns, 'retune');
    const sizes = async (): Promise<string> => (await mine()).map((r) => r.replicas).join();
    // The new pods never become Ready from here on.
    await patchDeployment(ns, 'retune', image('nginx:2'));
    await eventually(async () => ((await sizes()) === '4,1' ? true : undefined));
    await patchDeployment(ns, 'retune', { spec: { strategy: { rollingUpdate: { maxSurge: 3 } } } });
    await eventually(async () => ((await sizes()) === '4,3' ? true : undefined));
    // maxUnavailable 2: the old ReplicaSet gives up 2 available pods, the new one grows back to 7 in all.
    await patchDeployment(ns, 'retune', { spec: { strategy: { rollingUpdate: { maxUnavailable: 2 } } } });
    await eventually(async () => ((await sizes()) === '2,4' ? true : undefined));
    await settle();
    assert.equal(await sizes(), '2,4');
    assert.equal((await getReplicaSet(ns, first?.name ?? '')).metadata.annotations['deployment.kubernetes.io/max-replicas'], '7');
  });

  test("an old ReplicaSet with more available pods than its replicas (deletes refused, as GraceDelete holds pods) is never scaled up by the clean-up of unhealthy replicas", async () => {
    await createDeployment(ns, deployment('holds', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }));
    const mine = async (): Promise<ReplicaSetState[]> => (await replicaSets(h, ns)).filter((r) => r.name.startsWith('holds-'));
    const [old] = await eventually(async () => {
      const sets = await mine();
      return sets[0]?.status.replicas === 4 ? sets : undefined;
    });
    await readyAll();
    await rolledOut(ns, 'holds');
    // Every delete of a pod of this Deployment is refused from now on: the old pods stay, Ready and available.
    const refuse = h.sandbox.addAdmission({
      name: 'refuse-deletes',
      validate: (a) => {
        if (a.operation === 'DELETE' && a.resource.resource === 'pods' && a.name.startsWith('holds-')) throw new Error('held');
      },
    });
    // The old ReplicaSet's spec.replicas each time it changes.
    const oldSizes: number[] = [];
    const stream = watchStream(h, `/apis/apps/v1/namespaces/${ns}/replicasets?fieldSelector=metadata.name=${old?.name ?? ''}`, (_type, rs) => {
      if (rs.spec.replicas !== oldSizes.at(-1)) oldSizes.push(rs.spec.replicas);
    });
    try {
      await stream.connected;
      await patchDeployment(ns, 'holds', image('nginx:2'));
      // The old ReplicaSet goes to 3 (maxUnavailable 1), its pod cannot go; the new pods become Ready.
      for (let round = 0; round < 3; round++) {
        await settle();
        await readyAll();
      }
      await settle();
      assert.ok(oldSizes.includes(3), `the old ReplicaSet was scaled down: ${JSON.stringify(oldSizes)}`);
      // kube-controller-manager refuses to "clean up" into a larger size (it errors and tries again later).
      for (const [i, size] of oldSizes.entries()) assert.ok(i === 0 || size <= (oldSizes[i - 1] ?? 0), `the old ReplicaSet never grows: ${JSON.stringify(oldSizes)}`);
    } finally {
      stream.stop();
      refuse();
    }
  });

  test('while paused, a larger maxSurge is a scale: the room it makes is shared in proportion, the old ReplicaSet included', async () => {
    // As upstream (kubernetes/kubernetes#115735): sync → scale treats the new allowance like a replicas change.
    await createDeployment(ns, deployment('widen', { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const sizes = async (): Promise<string> => (await replicaSets(h, ns)).filter((r) => r.name.startsWith('widen-')).map((r) => r.replicas).join();
    await eventually(async () => ((await sizes()) === '4' ? true : undefined));
    await readyAll();
    await rolledOut(ns, 'widen');
    await patchDeployment(ns, 'widen', image('nginx:2'));
    await eventually(async () => ((await sizes()) === '4,1' ? true : undefined));
    await readyAll();
    await eventually(async () => ((await sizes()) === '3,2' ? true : undefined));
    await patchDeployment(ns, 'widen', { spec: { paused: true } });
    await eventually(async () => (progressing(await getDeployment(ns, 'widen')) === 'Unknown DeploymentPaused' ? true : undefined));
    await patchDeployment(ns, 'widen', { spec: { strategy: { rollingUpdate: { maxSurge: 3 } } } });
    // 7 allowed, 5 there: old 3·7/5 → 4, new 2·7/5 → 3 (rounded half away from zero).
    await eventually(async () => ((await sizes()) === '4,3' ? true : undefined));
    await settle();
    assert.equal(await sizes(), '4,3');
  });
});

describe('kubectl rollout', { skip: skipWithoutKubectl }, () => {
  const ns = 'kubectl';
  before(() => namespace(ns, true));

  const kubectl = async (...args: string[]): Promise<string> => {
    const result = await h.kubectl([...args, '-n', ns]);
    assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const currentImage = async (): Promise<string> => (await getDeployment(ns, 'app')).spec.template.spec.containers[0].image;

  test('status, history, undo, pause, resume and restart work against the sandbox', async () => {
    await kubectl('create', 'deployment', 'app', '--image=nginx:1', '--replicas=2');
    assert.match(await kubectl('rollout', 'status', 'deployment/app', '--timeout=20s'), /deployment "app" successfully rolled out/);

    await kubectl('set', 'image', 'deployment/app', 'nginx=nginx:2');
    const status = await kubectl('rollout', 'status', 'deployment/app', '--timeout=20s');
    assert.match(status, /deployment "app" successfully rolled out\n$/);

    const history = await kubectl('rollout', 'history', 'deployment/app');
    assert.match(history, /^deployment\.apps\/app \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
    assert.match(await kubectl('rollout', 'history', 'deployment/app', '--revision=1'), /Image:\s+nginx:1/);

    assert.match(await kubectl('rollout', 'undo', 'deployment/app'), /deployment\.apps\/app rolled back/);
    assert.equal(await currentImage(), 'nginx:1');
    await kubectl('rollout', 'status', 'deployment/app', '--timeout=20s');
    const sets = await replicaSets(h, ns);
    assert.equal(sets.length, 2, 'the undo reuses the first ReplicaSet');
    assert.equal(sets[1]?.revision, '3');
    const reused = await getReplicaSet(ns, sets[1]?.name ?? '');
    assert.equal(reused.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    assert.match(await kubectl('rollout', 'history', 'deployment/app'), /\n2\s+<none>\n3\s+<none>\n/);

    assert.match(await kubectl('rollout', 'undo', 'deployment/app', '--to-revision=2'), /rolled back/);
    assert.equal(await currentImage(), 'nginx:2');
    await kubectl('rollout', 'status', 'deployment/app', '--timeout=20s');

    assert.match(await kubectl('rollout', 'pause', 'deployment/app'), /deployment\.apps\/app paused/);
    const paused = await eventually(async () => {
      const d = await getDeployment(ns, 'app');
      return d.status.conditions.find((c: Json) => c.type === 'Progressing' && c.reason === 'DeploymentPaused') ? d : undefined;
    });
    assert.equal(paused.spec.paused, true);
    const restartPaused = await h.kubectl(['rollout', 'restart', 'deployment/app', '-n', ns]);
    assert.notEqual(restartPaused.code, 0);
    assert.match(restartPaused.stderr, /can't restart paused deployment \(run rollout resume first\)/);
    const undoPaused = await h.kubectl(['rollout', 'undo', 'deployment/app', '-n', ns]);
    assert.match(undoPaused.stderr, /you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again/);

    assert.match(await kubectl('rollout', 'resume', 'deployment/app'), /deployment\.apps\/app resumed/);
    await eventually(async () => {
      const d = await getDeployment(ns, 'app');
      return d.status.conditions.find((c: Json) => c.type === 'Progressing' && c.reason !== 'DeploymentPaused') ? d : undefined;
    });
    const before = (await replicaSets(h, ns)).length;
    assert.match(await kubectl('rollout', 'restart', 'deployment/app'), /deployment\.apps\/app restarted/);
    await kubectl('rollout', 'status', 'deployment/app', '--timeout=20s');
    const after = await replicaSets(h, ns);
    assert.equal(after.length, before + 1);
    const restarted = await getReplicaSet(ns, after.at(-1)?.name ?? '');
    assert.ok(restarted.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']);
    assert.equal(restarted.metadata.annotations['deployment.kubernetes.io/revision'], '5');
  });
});

describe('end to end with the simulated nodes (zero delays)', { skip: skipWithoutKubectl }, () => {
  let e2e: Harness;
  const ns = 'e2e';
  before(async () => {
    e2e = await startHarness({ simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
    await e2e.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => e2e.stop());

  test('a rolling update runs on the kubelets to completion, and a scale-down terminates pods gracefully', async () => {
    const body = deployment('live', { replicas: 6, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } });
    assert.equal((await e2e.http('POST', deploymentPath(ns), body)).status, 201);
    const status = await e2e.kubectl(['rollout', 'status', 'deployment/live', '-n', ns, '--timeout=30s']);
    assert.equal(status.code, 0, status.stderr);
    assert.equal((await e2e.http('PATCH', deploymentPath(ns, 'live'), image('nginx:2'), merge)).status, 200);
    const second = await e2e.kubectl(['rollout', 'status', 'deployment/live', '-n', ns, '--timeout=30s']);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /deployment "live" successfully rolled out/);
    const pods = (await getJson(e2e, `/api/v1/namespaces/${ns}/pods`)).items;
    assert.equal(pods.length, 6);
    for (const pod of pods) {
      assert.equal(pod.spec.containers[0].image, 'nginx:2');
      assert.equal(pod.status.phase, 'Running');
      assert.ok(pod.spec.nodeName);
    }

    assert.equal((await e2e.http('PATCH', deploymentPath(ns, 'live'), { spec: { replicas: 2 } }, merge)).status, 200);
    const remaining = await eventually(async () => {
      const current = (await getJson(e2e, `/api/v1/namespaces/${ns}/pods`)).items;
      return current.length === 2 ? current : undefined;
    });
    assert.ok(remaining.every((p: Json) => !p.metadata.deletionTimestamp));
    const d = await eventually(async () => {
      const current = await getJson(e2e, deploymentPath(ns, 'live'));
      return current.status.replicas === 2 && current.status.availableReplicas === 2 ? current : undefined;
    });
    assert.equal(d.status.readyReplicas, 2);
  });

  test('RollingUpdate keeps within maxSurge and maxUnavailable at every step (from the ReplicaSets over time)', async () => {
    const ns = 'roll';
    await e2e.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    assert.equal((await e2e.http('POST', deploymentPath(ns), deployment('roll', { replicas: 10, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: '25%' } } }))).status, 201);
    await rolledOut(ns, 'roll', e2e);
    const states = new Map<string, Json>();
    const violations: string[] = [];
    let steps = 0;
    const watch = watchStream(e2e, `/apis/apps/v1/namespaces/${ns}/replicasets`, (type, rs) => {
      if (type === 'DELETED') states.delete(rs.metadata.name);
      else states.set(rs.metadata.name, rs);
      steps++;
      const all = [...states.values()];
      const total = all.reduce((n, r) => n + r.spec.replicas, 0);
      const available = all.reduce((n, r) => n + Math.min(r.spec.replicas, r.status?.availableReplicas ?? 0), 0);
      // maxSurge 3 and maxUnavailable 25% of 10, rounded down: 2.
      if (total > 13) violations.push(`${total} replicas`);
      if (available < 8) violations.push(`${available} available`);
    });
    await eventually(() => (states.size === 1 ? true : undefined));
    await e2e.http('PATCH', deploymentPath(ns, 'roll'), image('nginx:2'), merge);
    const done = await rolledOut(ns, 'roll', e2e);
    watch.stop();
    assert.deepEqual(violations, []);
    assert.ok(steps > 10, `the rollout went through ${steps} steps`);
    assert.deepEqual(
      (await replicaSets(e2e, ns)).map((r) => [r.revision, r.replicas]),
      [
        ['1', 0],
        ['2', 10],
      ],
    );
    const progressing = done.status.conditions.find((c: Json) => c.type === 'Progressing');
    assert.equal(progressing.reason, 'NewReplicaSetAvailable');
    const newName = (await replicaSets(e2e, ns))[1]?.name;
    assert.equal(progressing.message, `ReplicaSet "${newName}" has successfully progressed.`);
    assert.deepEqual(withoutTimes([done.status.conditions.find((c: Json) => c.type === 'Available')]), [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
    ]);
    const first = (await events(ns, 'roll', e2e)).map((e) => e.message);
    assert.ok(first.includes(`Scaled up replica set ${newName} from 0 to 3`), JSON.stringify(first));
  });
});

describe('minReadySeconds on the simulated nodes', () => {
  let sim: Harness;
  const ns = 'minready';
  before(async () => {
    sim = await startHarness({ recordWrites: true, simulation: { nodes: 2, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
    await sim.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  after(() => sim.stop());

  test("a new ReplicaSet's pods count as available only minReadySeconds after Ready, and the rollout waits for them", async () => {
    // minReadySeconds 2: Ready times have whole seconds, so each pod waits between 1 and 2 s.
    const body = deployment('steady', { minReadySeconds: 2, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    assert.equal((await sim.http('POST', deploymentPath(ns), body)).status, 201, 'created');
    await rolledOut(ns, 'steady', sim);
    const sinceRv = sim.sandbox.resourceVersion;
    const started = Date.now();
    assert.equal((await sim.http('PATCH', deploymentPath(ns, 'steady'), image('nginx:2'), merge)).status, 200);
    const done = await eventually(async () => {
      const d = await rolledOut(ns, 'steady', sim);
      return d.status.observedGeneration === 2 ? d : undefined;
    }, 10_000);
    // Two new pods, one at a time (maxSurge 1), each awaited for more than a second after it is Ready.
    assert.ok(Date.now() - started >= 2000, `rolled out in ${Date.now() - started} ms`);
    assert.equal(done.status.availableReplicas, 2);

    const [oldRs, newRs] = await replicaSets(sim, ns);
    const hashOf = (name: string): string => name.slice('steady-'.length);
    const records = (sim.sandbox.history?.records() ?? []).filter((r) => r.resourceVersion > sinceRv && r.namespace === ns);
    const readySince = (pod: Json): number | undefined => {
      const ready = pod.status?.conditions?.find((c: Json) => c.type === 'Ready' && c.status === 'True');
      return ready ? Date.parse(ready.lastTransitionTime) : undefined;
    };
    const newPods = new Map<string, Json>();
    const oldSizes = new Set<number>();
    let sawReadyNotAvailable = false;
    for (const record of records) {
      const object = record.object as Json;
      if (record.resource === 'pods' && object.metadata.labels?.['pod-template-hash'] === hashOf(newRs?.name ?? '')) newPods.set(record.name, object);
      if (record.resource === 'replicasets.apps' && record.name === newRs?.name && (object.status?.readyReplicas ?? 0) > (object.status?.availableReplicas ?? 0)) sawReadyNotAvailable = true;
      if (record.resource === 'replicasets.apps' && record.name === oldRs?.name && record.type === 'MODIFIED') {
        const remaining = object.spec.replicas;
        if (remaining >= 2) continue;
        oldSizes.add(remaining);
        // maxUnavailable 0: every old pod let go is covered by a new pod Ready for minReadySeconds.
        const available = [...newPods.values()].filter((p) => !p.metadata.deletionTimestamp && (readySince(p) ?? Infinity) + 2000 <= record.time).length;
        assert.ok(available + remaining >= 2, `old ReplicaSet scaled to ${remaining} with ${available} new pods available`);
      }
    }
    assert.ok(sawReadyNotAvailable, 'the new ReplicaSet reported a Ready pod that was not yet available');
    assert.deepEqual([...oldSizes], [1, 0], 'the old ReplicaSet scaled down one pod at a time');
  });
});
