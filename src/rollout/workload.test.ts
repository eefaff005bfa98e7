// The hold of each kind, template identity, and the user's settings as podops reads them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FROZEN_PARTITION,
  POD_TEMPLATE_HASH_LABEL,
  holdSettings,
  normalizedTemplate,
  reachableReplicas,
  sameTemplate,
  settingsOf,
  templateHash,
  userDrivesUpdates,
  type HoldContext,
  type Json,
  type Settings,
} from './workload.ts';

const context = (replicas: number, newReplicas = 0): HoldContext => ({ replicas, newReplicas });
const rollingUpdate = (maxSurge: Json, maxUnavailable: Json): Settings => ({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } });
const stepping = (maxSurge: number, maxUnavailable: number): Settings => ({ paused: false, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } });

describe('holdSettings: Deployment', () => {
  test('stepping with surge adds at most the distance to the point, no pod unavailable', () => {
    const user = rollingUpdate(2, 1);
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10)), stepping(2, 0));
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10, 4)), stepping(1, 0));
  });

  test('with no surge, stepping takes down at most the distance (and at least one)', () => {
    const user = rollingUpdate(0, 3);
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10)), stepping(0, 3));
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10, 3)), stepping(0, 2));
    // 10% of 5 is 0 unavailable: still one at a time, as Kubernetes never lets both be 0.
    assert.deepEqual(holdSettings('Deployment', rollingUpdate('0%', '10%'), { type: 'step', count: 5 }, context(5)), stepping(0, 1));
  });

  test('percentages are resolved as Kubernetes does: surge rounded up, unavailability down', () => {
    assert.deepEqual(holdSettings('Deployment', rollingUpdate('25%', '25%'), { type: 'step', count: 8 }, context(10)), stepping(3, 0));
    assert.deepEqual(holdSettings('Deployment', rollingUpdate('0%', '25%'), { type: 'step', count: 8 }, context(10)), stepping(0, 2));
    assert.deepEqual(holdSettings('Deployment', rollingUpdate('1%', 0), { type: 'step', count: 8 }, context(10)), stepping(1, 0));
  });

  test('without a rolling update of its own, the Kubernetes defaults (25%, 25%) apply', () => {
    assert.deepEqual(holdSettings('Deployment', {}, { type: 'step', count: 8 }, context(10)), stepping(3, 0));
    assert.deepEqual(holdSettings('Deployment', { strategy: { type: 'RollingUpdate' } }, { type: 'step', count: 1 }, context(2)), stepping(1, 0));
  });

  test('at the point (or past it), and frozen, the Deployment is paused with a Recreate strategy', () => {
    // Paused with a rolling update, the deployment controller still scales ReplicaSets in proportion on a
    // scale-up (the new one could pass the point); paused and Recreate, nothing moves.
    const frozen = { paused: true, strategy: { type: 'Recreate' } };
    for (const newReplicas of [5, 7]) assert.deepEqual(holdSettings('Deployment', rollingUpdate(2, 1), { type: 'step', count: 5 }, context(10, newReplicas)), frozen);
    assert.deepEqual(holdSettings('Deployment', rollingUpdate(2, 1), { type: 'step', count: 0 }, context(10)), frozen);
    assert.deepEqual(holdSettings('Deployment', rollingUpdate('50%', 0), { type: 'frozen' }, context(10, 3)), frozen);
    assert.deepEqual(holdSettings('Deployment', {}, { type: 'frozen' }, context(10)), frozen);
  });

  test('a Recreate Deployment cannot stop between points: it is let go with its own strategy', () => {
    const user = { strategy: { type: 'Recreate' } };
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10)), { paused: false, strategy: { type: 'Recreate' } });
    assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10, 10)), { paused: true, strategy: { type: 'Recreate' } });
  });

  test("the user's own pause is kept: podops never moves pods the user's settings would not", () => {
    for (const user of [{ paused: true, ...rollingUpdate(2, 1) }, { paused: true, strategy: { type: 'Recreate' } }]) {
      assert.deepEqual(holdSettings('Deployment', user, { type: 'step', count: 5 }, context(10)), { paused: true, strategy: { type: 'Recreate' } });
    }
  });

  test("release gives the user's settings back as they are", () => {
    const user = { paused: false, ...rollingUpdate('30%', 1) };
    assert.equal(holdSettings('Deployment', user, { type: 'release' }, context(10, 3)), user);
    assert.deepEqual(holdSettings('Deployment', {}, { type: 'release' }, context(10)), {});
  });
});

describe('holdSettings: StatefulSet', () => {
  test('a step sets the partition that lets `count` pods update, keeping the rest of the rolling update', () => {
    assert.deepEqual(holdSettings('StatefulSet', {}, { type: 'step', count: 3 }, context(10)), { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 7 } } });
    const user = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } };
    assert.deepEqual(holdSettings('StatefulSet', user, { type: 'step', count: 4 }, context(10)), {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, partition: 6 } },
    });
  });

  test('point 0 holds every pod, even those a scale-up adds meanwhile', () => {
    assert.deepEqual(holdSettings('StatefulSet', {}, { type: 'step', count: 0 }, context(10)), { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: FROZEN_PARTITION } } });
  });

  test("the user's partition is composed: never updated below it", () => {
    const user = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 4 } } };
    assert.deepEqual(holdSettings('StatefulSet', user, { type: 'step', count: 3 }, context(10)), { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 7 } } });
    assert.deepEqual(holdSettings('StatefulSet', user, { type: 'step', count: 8 }, context(10)), { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 4 } } });
  });

  test('frozen is the int32 maximum: no pod updates, whatever the replicas become', () => {
    const user = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 4, maxUnavailable: '50%' } } };
    assert.deepEqual(holdSettings('StatefulSet', user, { type: 'frozen' }, context(10)), {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: FROZEN_PARTITION, maxUnavailable: '50%' } },
    });
    assert.equal(FROZEN_PARTITION, 2 ** 31 - 1);
  });

  test('OnDelete is left to the user', () => {
    const user = { updateStrategy: { type: 'OnDelete' } };
    assert.equal(holdSettings('StatefulSet', user, { type: 'frozen' }, context(10)), user);
    assert.equal(holdSettings('StatefulSet', user, { type: 'step', count: 3 }, context(10)), user);
  });
});

describe('holdSettings: DaemonSet', () => {
  test('held as OnDelete, frozen or stepping (podops replaces the pods)', () => {
    const expected = { updateStrategy: { type: 'OnDelete' } };
    const user = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } };
    assert.deepEqual(holdSettings('DaemonSet', user, { type: 'frozen' }, context(5)), expected);
    assert.deepEqual(holdSettings('DaemonSet', user, { type: 'step', count: 2 }, context(5)), expected);
    assert.deepEqual(holdSettings('DaemonSet', {}, { type: 'step', count: 2 }, context(5)), expected);
    assert.equal(holdSettings('DaemonSet', user, { type: 'release' }, context(5)), user);
  });

  test("the user's OnDelete is theirs", () => {
    const user = { updateStrategy: { type: 'OnDelete' } };
    assert.equal(holdSettings('DaemonSet', user, { type: 'step', count: 2 }, context(5)), user);
  });
});

describe('settingsOf, reachableReplicas, userDrivesUpdates', () => {
  test('the hold fields present on the workload, absent ones absent', () => {
    const spec = { replicas: 3, paused: true, strategy: { type: 'Recreate' }, template: {} };
    assert.deepEqual(settingsOf('Deployment', { metadata: {}, spec }), { paused: true, strategy: { type: 'Recreate' } });
    assert.deepEqual(settingsOf('Deployment', { metadata: {}, spec: { replicas: 3 } }), {});
    assert.deepEqual(settingsOf('StatefulSet', { metadata: {}, spec: { ...spec, updateStrategy: { type: 'OnDelete' } } }), { updateStrategy: { type: 'OnDelete' } });
    assert.deepEqual(settingsOf('DaemonSet', { metadata: {} }), {});
  });

  test("a StatefulSet's own partition keeps pods from the new revision; nothing else does", () => {
    const partition = (p: number) => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: p } } });
    assert.equal(reachableReplicas('StatefulSet', partition(3), 10), 7);
    assert.equal(reachableReplicas('StatefulSet', partition(30), 10), 0);
    assert.equal(reachableReplicas('StatefulSet', {}, 10), 10);
    assert.equal(reachableReplicas('StatefulSet', { updateStrategy: { type: 'OnDelete' } }, 10), 10);
    assert.equal(reachableReplicas('Deployment', partition(3), 10), 10);
    assert.equal(reachableReplicas('DaemonSet', partition(3), 10), 10);
  });

  test('OnDelete leaves the stepping to the user, except on a Deployment', () => {
    const onDelete = { updateStrategy: { type: 'OnDelete' } };
    assert.equal(userDrivesUpdates('StatefulSet', onDelete), true);
    assert.equal(userDrivesUpdates('DaemonSet', onDelete), true);
    assert.equal(userDrivesUpdates('Deployment', onDelete), false);
    assert.equal(userDrivesUpdates('DaemonSet', { updateStrategy: { type: 'RollingUpdate' } }), false);
    assert.equal(userDrivesUpdates('StatefulSet', {}), false);
  });
});

describe('normalizedTemplate, sameTemplate, templateHash', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'app:v1', env: [{ name: 'A', value: '1' }] }] },
  };

  test("a ReplicaSet's template (with the pod-template-hash label) is its Deployment's", () => {
    const replicaSet = { metadata: { labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: '5d8f9c7b6' } }, spec: template.spec };
    assert.ok(sameTemplate(template, replicaSet));
    assert.equal(templateHash(replicaSet), templateHash(template));
  });

  test("a ControllerRevision's template (a strategic patch) is its workload's", () => {
    const revision = { ...template, $patch: 'replace' };
    assert.ok(sameTemplate(template, revision));
    assert.equal(templateHash(revision), templateHash(template));
  });

  test('nulls, empty lists and empty label, annotation and node-selector maps are as absent', () => {
    const noisy = {
      metadata: { labels: { app: 'web' }, annotations: {}, creationTimestamp: null },
      spec: { containers: [{ name: 'app', image: 'app:v1', env: [{ name: 'A', value: '1' }], ports: [], command: null }], nodeSelector: {}, volumes: [] },
    };
    assert.deepEqual(normalizedTemplate(noisy), normalizedTemplate(template));
    assert.ok(sameTemplate(noisy, template));
  });

  test('key order does not matter; list order does', () => {
    const reordered = { spec: { containers: [{ env: [{ value: '1', name: 'A' }], image: 'app:v1', name: 'app' }] }, metadata: { labels: { app: 'web' } } };
    assert.ok(sameTemplate(reordered, template));
    const twoContainers = (a: string, b: string) => ({ spec: { containers: [{ name: a }, { name: b }] } });
    assert.ok(!sameTemplate(twoContainers('a', 'b'), twoContainers('b', 'a')));
  });

  test('other empty maps are kept: they are part of the template', () => {
    assert.deepEqual(normalizedTemplate({ spec: { securityContext: {} } }), { spec: { securityContext: {} } });
  });

  test('a different template has a different hash; the hash is short, hex and stable', () => {
    const other = { ...template, spec: { containers: [{ name: 'app', image: 'app:v2' }] } };
    assert.ok(!sameTemplate(template, other));
    assert.notEqual(templateHash(template), templateHash(other));
    assert.match(templateHash(template), /^[0-9a-f]{10}$/);
    assert.equal(templateHash(structuredClone(template)), templateHash(template));
  });
});
