// The workload webhook's decision: a hooked template change is frozen, stashed and stamped in the same write;
// while held, other writers change what is restored at the end, not the hold.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, type WorkloadKind } from '../api/rolloutlifecycle.ts';
import { admitWorkloadUpdate, revisionOf, rolloutStamp, type WorkloadUpdate } from './admission.ts';
import type { Revision } from './observe.ts';
import { parseSettings, parseStamp } from './stash.ts';
import { applyPatch, template, workload } from './fixtures.test-support.ts';
import { FROZEN_PARTITION, templateHash, type JsonObject, type Workload } from './workload.ts';

const NOW = '2025-03-01T10:00:00Z';
const v1 = template('app:v1');
const v2 = template('app:v2');
const v3 = template('app:v3');
const revisions: Revision[] = [
  { name: 'web-rs-v1', template: { ...v1, metadata: { labels: { app: 'web', 'pod-template-hash': 'aaa' } } } },
  { name: 'web-rs-v0', template: template('app:v0') },
];

const FROZEN_STRATEGY = { type: 'Recreate' };
const deploymentSpec: JsonObject = { replicas: 4, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } };

function update(kind: WorkloadKind, oldObject: Workload, change: (w: Workload) => void, extra: Partial<WorkloadUpdate> = {}): { patch: ReturnType<typeof admitWorkloadUpdate>; stored: Workload } {
  const object = structuredClone(oldObject);
  change(object);
  const patch = admitWorkloadUpdate({ kind, oldObject, object, byPodops: false, hooked: true, revisions, now: NOW, rolloutId: 'r1', ...extra });
  return { patch, stored: applyPatch(object, patch) };
}

const setTemplate = (t: JsonObject) => (w: Workload) => {
  (w.spec as JsonObject).template = structuredClone(t);
};
const annotation = (w: Workload, key: string) => w.metadata.annotations?.[key];

/** The Deployment as the webhook leaves it after its template changed from v1 to v2. */
function heldDeployment(): Workload {
  return update('Deployment', workload('Deployment', deploymentSpec), setTemplate(v2)).stored;
}

describe('admitWorkloadUpdate: no rollout', () => {
  test('a write that does not change the template passes, hold fields included', () => {
    const { patch } = update('Deployment', workload('Deployment', deploymentSpec), (w) => {
      (w.spec as JsonObject).replicas = 9;
      (w.spec as JsonObject).paused = true;
    });
    assert.deepEqual(patch, []);
  });

  test('a template change without hooks passes', () => {
    assert.deepEqual(update('Deployment', workload('Deployment', deploymentSpec), setTemplate(v2), { hooked: false }).patch, []);
  });

  test("podops' own writes pass", () => {
    assert.deepEqual(update('Deployment', workload('Deployment', deploymentSpec), setTemplate(v2), { byPodops: true }).patch, []);
    assert.deepEqual(update('Deployment', heldDeployment(), setTemplate(v3), { byPodops: true }).patch, []);
  });

  test('the same template written differently (nulls, key order) is no change', () => {
    const { patch } = update('Deployment', workload('Deployment', deploymentSpec), (w) => {
      (w.spec as JsonObject).template = { spec: { containers: [{ image: 'app:v1', name: 'app', ports: null }] }, metadata: { labels: { app: 'web' }, annotations: {} } };
    });
    assert.deepEqual(patch, []);
  });
});

describe('admitWorkloadUpdate: the first template change', () => {
  test('Deployment: paused and Recreate in the same write, its settings stashed, the rollout stamped', () => {
    const { patch, stored } = update('Deployment', workload('Deployment', deploymentSpec), setTemplate(v2));
    assert.deepEqual(patch, [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: {
          [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify({ strategy: deploymentSpec.strategy }),
          [RL_ROLLOUT_ANNOTATION]: JSON.stringify({ id: 'r1', templateHash: templateHash(v2), type: 'ROLLOUT', from: 'web-rs-v1', changedAt: NOW }),
        },
      },
      { op: 'add', path: '/spec/paused', value: true },
      // The whole strategy: a merge would leave the rolling update's parameters beside Recreate.
      { op: 'add', path: '/spec/strategy', value: FROZEN_STRATEGY },
    ]);
    assert.deepEqual(stored.spec?.strategy, FROZEN_STRATEGY);
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r1', templateHash: templateHash(v2), type: 'ROLLOUT', from: 'web-rs-v1', changedAt: NOW });
  });

  test("existing annotations are kept, podops' are added one by one", () => {
    const { patch } = update('Deployment', workload('Deployment', deploymentSpec, { team: 'shop' }), setTemplate(v2));
    assert.deepEqual(
      patch.map((op) => [op.op, op.path]),
      [
        ['add', '/metadata/annotations/rolloutlifecycle.kusionstack.io~1user-settings'],
        ['add', '/metadata/annotations/rolloutlifecycle.kusionstack.io~1rollout'],
        ['add', '/spec/paused'],
        ['add', '/spec/strategy'],
      ],
    );
  });

  test("a user's pause is stashed as it is, and the field set", () => {
    const { patch, stored } = update('Deployment', workload('Deployment', { ...deploymentSpec, paused: false }), setTemplate(v2));
    assert.deepEqual(patch.at(-2), { op: 'add', path: '/spec/paused', value: true });
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { paused: false, strategy: deploymentSpec.strategy });
  });

  test('StatefulSet: the partition frozen at the int32 maximum, the rest of the rolling update kept', () => {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 1 } };
    const { stored } = update('StatefulSet', workload('StatefulSet', { replicas: 5, updateStrategy: strategy }), setTemplate(v2));
    assert.deepEqual(stored.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: FROZEN_PARTITION, maxUnavailable: 1 } });
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { updateStrategy: strategy });
  });

  test('StatefulSet without an update strategy: frozen, and an empty stash (removed again at the end)', () => {
    const { stored } = update('StatefulSet', workload('StatefulSet', { replicas: 5 }), setTemplate(v2));
    assert.deepEqual(stored.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: FROZEN_PARTITION } });
    assert.equal(annotation(stored, RL_USER_SETTINGS_ANNOTATION), '{}');
  });

  test('DaemonSet: OnDelete', () => {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '20%', maxSurge: 0 } };
    const { stored } = update('DaemonSet', workload('DaemonSet', { updateStrategy: strategy }), setTemplate(v2));
    assert.deepEqual(stored.spec?.updateStrategy, { type: 'OnDelete' });
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { updateStrategy: strategy });
  });

  test("the user's OnDelete is not touched, but the rollout is stashed and stamped", () => {
    const strategy = { type: 'OnDelete' };
    const { patch } = update('StatefulSet', workload('StatefulSet', { replicas: 3, updateStrategy: strategy }), setTemplate(v2));
    assert.deepEqual(
      patch.map((op) => op.path),
      ['/metadata/annotations'],
    );
  });

  test('ROLLBACK when an existing revision has the new template', () => {
    const old = workload('Deployment', { ...deploymentSpec, template: v2 });
    const { stored } = update('Deployment', old, setTemplate(v1), { revisions: [...revisions, { name: 'web-rs-v2', template: v2 }] });
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r1', templateHash: templateHash(v1), type: 'ROLLBACK', from: 'web-rs-v2', changedAt: NOW });
  });

  test('no revision with the old template: no from', () => {
    const { stored } = update('Deployment', workload('Deployment', deploymentSpec), setTemplate(v2), { revisions: [] });
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r1', templateHash: templateHash(v2), type: 'ROLLOUT', changedAt: NOW });
  });
});

describe('admitWorkloadUpdate: while held', () => {
  test("a user's change of a hold field goes to the stash; the field keeps podops' value", () => {
    const held = heldDeployment();
    const userStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    const { patch, stored } = update('Deployment', held, (w) => {
      (w.spec as JsonObject).paused = false;
      (w.spec as JsonObject).strategy = userStrategy;
    });
    assert.equal(stored.spec?.paused, true);
    assert.deepEqual(stored.spec?.strategy, held.spec?.strategy);
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { strategy: userStrategy, paused: false });
    assert.equal(annotation(stored, RL_ROLLOUT_ANNOTATION), annotation(held, RL_ROLLOUT_ANNOTATION));
    assert.equal(patch.length, 3);
  });

  test('a user write that removes a hold field removes it from the stash', () => {
    const held = update('Deployment', workload('Deployment', { ...deploymentSpec, paused: false }), setTemplate(v2)).stored;
    const { stored } = update('Deployment', held, (w) => {
      delete (w.spec as JsonObject).paused;
    });
    assert.equal(stored.spec?.paused, true);
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { strategy: deploymentSpec.strategy });
  });

  test("a StatefulSet's partition written by the user goes to the stash", () => {
    const held = update('StatefulSet', workload('StatefulSet', { replicas: 5 }), setTemplate(v2)).stored;
    const mine = { type: 'RollingUpdate', rollingUpdate: { partition: 3 } };
    const { stored } = update('StatefulSet', held, (w) => {
      (w.spec as JsonObject).updateStrategy = mine;
    });
    assert.deepEqual(stored.spec?.updateStrategy, held.spec?.updateStrategy);
    assert.deepEqual(parseSettings(annotation(stored, RL_USER_SETTINGS_ANNOTATION)), { updateStrategy: mine });
  });

  test('a write that changes nothing podops holds passes as it is', () => {
    const { patch } = update('Deployment', heldDeployment(), (w) => {
      (w.spec as JsonObject).replicas = 7;
    });
    assert.deepEqual(patch, []);
  });

  test("a second template change freezes again: a new rollout id, the stamp's from kept", () => {
    const held = heldDeployment();
    const stepping = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    // podops stepped it: unpaused with its own rolling update (its write passes).
    const stepped = applyPatch(held, [
      { op: 'replace', path: '/spec/paused', value: false },
      { op: 'replace', path: '/spec/strategy', value: stepping },
    ]);
    const { stored } = update('Deployment', stepped, setTemplate(v3), { now: '2025-03-01T10:05:00Z', revisions: [...revisions, { name: 'web-rs-v2', template: v2 }], rolloutId: 'r2' });
    assert.equal(stored.spec?.paused, true);
    assert.deepEqual(stored.spec?.strategy, FROZEN_STRATEGY);
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r2', templateHash: templateHash(v3), type: 'ROLLOUT', from: 'web-rs-v1', changedAt: '2025-03-01T10:05:00Z' });
    assert.equal(annotation(stored, RL_USER_SETTINGS_ANNOTATION), annotation(held, RL_USER_SETTINGS_ANNOTATION));
  });

  test('a second template change back to the first is a ROLLBACK from the revision it abandons', () => {
    const { stored } = update('Deployment', heldDeployment(), setTemplate(v1), { revisions: [...revisions, { name: 'web-rs-v2', template: v2 }] });
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r1', templateHash: templateHash(v1), type: 'ROLLBACK', from: 'web-rs-v2', changedAt: NOW });
  });

  test('a ROLLBACK from a template that never got a revision (held at point 0) comes from none, not from where it goes', () => {
    const { stored } = update('Deployment', heldDeployment(), setTemplate(v1));
    assert.deepEqual(parseStamp(annotation(stored, RL_ROLLOUT_ANNOTATION)), { id: 'r1', templateHash: templateHash(v1), type: 'ROLLBACK', changedAt: NOW });
  });

  test('a StatefulSet stepping at a partition is frozen again by a new template', () => {
    const held = update('StatefulSet', workload('StatefulSet', { replicas: 5 }), setTemplate(v2)).stored;
    const stepped = applyPatch(held, [{ op: 'replace', path: '/spec/updateStrategy', value: { type: 'RollingUpdate', rollingUpdate: { partition: 3 } } }]);
    const { stored } = update('StatefulSet', stepped, setTemplate(v3));
    assert.deepEqual(stored.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: FROZEN_PARTITION } });
  });

  test('a user write that drops the annotations gets them back', () => {
    const held = heldDeployment();
    const { stored } = update('Deployment', held, (w) => {
      delete w.metadata.annotations;
    });
    assert.deepEqual(stored.metadata.annotations, held.metadata.annotations);
    const partly = update('Deployment', held, (w) => {
      w.metadata.annotations = { team: 'shop' };
    }).stored;
    assert.deepEqual(partly.metadata.annotations, { team: 'shop', ...held.metadata.annotations });
  });

  test('held without hooks any more: the hold is still kept (the controller releases it)', () => {
    const { stored } = update('Deployment', heldDeployment(), (w) => {
      (w.spec as JsonObject).paused = false;
    }, { hooked: false });
    assert.equal(stored.spec?.paused, true);
  });
});

describe('stamps and revisions', () => {
  test('parseStamp reads what rolloutStamp writes, and nothing else', () => {
    const stamp = rolloutStamp({ object: workload('Deployment', { template: v2 }), oldObject: workload('Deployment', {}), revisions, now: NOW, rolloutId: 'r1' }, 'web-rs-v1');
    assert.deepEqual(parseStamp(JSON.stringify(stamp)), stamp);
    assert.equal(parseStamp(undefined), undefined);
    assert.equal(parseStamp('{"templateHash":"x","type":"ROLLSIDEWAYS","changedAt":"t"}'), undefined);
    assert.equal(parseStamp('{"templateHash":"x","type":"ROLLOUT"}'), undefined);
    assert.equal(parseStamp('not json'), undefined);
  });

  test('parseSettings accepts objects only', () => {
    assert.deepEqual(parseSettings('{"paused":true}'), { paused: true });
    assert.equal(parseSettings('[1]'), undefined);
    assert.equal(parseSettings('null'), undefined);
    assert.equal(parseSettings('{'), undefined);
  });

  test('revisionOf finds the revision of a template, ignoring the pod-template-hash label', () => {
    assert.equal(revisionOf(revisions, workload('Deployment', {})), 'web-rs-v1');
    assert.equal(revisionOf(revisions, workload('Deployment', { template: v3 })), undefined);
  });
});
