// What enqueues each controller: the keys that an informer event makes the controller's declared triggers
// enqueue, event by event, on informers the test feeds.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { TO_DELETE_LABEL, TO_EVICT_LABEL } from '../api/protocol.ts';
import { RL_WORKLOAD_LABEL, WORKLOAD_KINDS, type RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import type { Trigger } from '../kube/controller.ts';
import type { Workload } from '../rollout/workload.ts';
import { FakeInformer } from '../../test/support/fake-informer.ts';
import { fakeCaches } from '../../test/support/fake-caches.ts';
import type { NamedPodDisruptionBudget } from '../cache/cluster-cache.ts';
import { pod } from '../../test/support/pods.ts';
import { lifecycleTriggers } from './lifecycle-controller.ts';
import { podDeletionTriggers } from './pod-deletion-controller.ts';
import { podEvictionTriggers } from './pod-eviction-controller.ts';
import { rolloutTriggers } from './rollout-controller.ts';
import { transitionTriggers } from './transition-controller.ts';

/** The keys `event` makes the triggers enqueue, each once, sorted (the queue folds repeats). */
function enqueuedBy(triggers: readonly Trigger[], event: () => void): string[] {
  const keys = new Set<string>();
  const unsubscribes = triggers.map((trigger) => trigger.subscribe((key) => keys.add(key)));
  // Subscribing replays the cache; only the event's keys count.
  keys.clear();
  event();
  for (const unsubscribe of unsubscribes) unsubscribe();
  return [...keys].sort();
}

const rule = (name: string, app: string, targets: string[] = [], namespace = 'default'): PodTransitionRule => ({
  metadata: { name, namespace },
  spec: { selector: { matchLabels: { app } }, rules: [] },
  status: { targets },
});

describe('lifecycle controller triggers', () => {
  const pods = new FakeInformer<Pod>();
  const rules = new FakeInformer<PodTransitionRule>();
  const triggers = lifecycleTriggers(pods.informer, rules.informer);

  test('every change of a cached pod enqueues that pod', () => {
    const web = pod({ name: 'web-a', labels: { app: 'web' } });
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(web)), ['default/web-a']);
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'web-a', labels: { app: 'api' } }))), ['default/web-a']);
    assert.deepEqual(enqueuedBy(triggers, () => pods.remove(web)), ['default/web-a']);
  });

  test('a rule change enqueues the pods its verdict changed for: listed or let go (a pod it let go passes), or with new details', () => {
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(rule('budget', 'web', ['web-a', 'web-b']))), ['default/web-a', 'default/web-b'], 'a new rule: every pod it lists');
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(rule('budget', 'web', ['web-b', 'web-c']))), ['default/web-a', 'default/web-c'], 'web-b stays listed, unchanged');
    const withDetail = (passed: boolean): PodTransitionRule => ({ ...rule('budget', 'web', ['web-b', 'web-c']), status: { targets: ['web-b', 'web-c'], details: [{ name: 'web-c', stage: 'PreCheck', passed }] } });
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(withDetail(false))), ['default/web-c'], 'a detail for web-c');
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(withDetail(true))), ['default/web-c'], 'its verdict changed');
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(withDetail(true))), [], 'a status write that changes no verdict');
    const respecified = withDetail(true);
    respecified.metadata.generation = 2;
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(respecified)), ['default/web-b', 'default/web-c'], 'a new spec: every pod it lists');
    assert.deepEqual(enqueuedBy(triggers, () => rules.put({ ...respecified, metadata: { ...respecified.metadata, deletionTimestamp: '2025-03-01T10:00:00Z' } })), ['default/web-b', 'default/web-c'], 'being deleted');
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(rule('empty', 'web'))), []);
    assert.deepEqual(enqueuedBy(triggers, () => rules.remove(rule('budget', 'web'))), ['default/web-b', 'default/web-c']);
  });
});

describe('transition controller triggers', () => {
  const pods = new FakeInformer<Pod>();
  const rules = new FakeInformer<PodTransitionRule>();
  for (const r of [rule('web', 'web'), rule('api', 'api'), rule('lists', 'none', ['web-a']), rule('elsewhere', 'web', [], 'other')]) rules.put(r);
  const triggers = transitionTriggers(rules.informer, pods.informer);

  test('every change of a rule enqueues that rule', () => {
    assert.deepEqual(enqueuedBy(triggers, () => rules.put(rule('api', 'api'))), ['default/api']);
  });

  test('a pod change enqueues the rules of its namespace that select it, selected it, or list it', () => {
    const web = pod({ name: 'web-a', labels: { app: 'web' } });
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(web)), ['default/lists', 'default/web']);
    // Relabelled from web to api: both rules must see it (one loses a target, the other gains one).
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'web-a', labels: { app: 'api' } }))), ['default/api', 'default/lists', 'default/web']);
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'solo', labels: { app: 'solo' } }))), []);
    assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'web-b', namespace: 'other', labels: { app: 'web' } }))), ['other/elsewhere']);
  });

  test('a rule with a malformed selector concerns no pod rather than failing the handler', () => {
    const broken = new FakeInformer<PodTransitionRule>();
    broken.put({ metadata: { name: 'broken', namespace: 'default' }, spec: { selector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } } });
    const brokenPods = new FakeInformer<Pod>();
    assert.deepEqual(enqueuedBy(transitionTriggers(broken.informer, brokenPods.informer), () => brokenPods.put(pod({ labels: { app: 'web' } }))), []);
  });
});

describe('pod-deletion and pod-eviction controller triggers', () => {
  const cases = [
    { name: 'pod-deletion', triggers: podDeletionTriggers, label: TO_DELETE_LABEL },
    { name: 'pod-eviction', triggers: podEvictionTriggers, label: TO_EVICT_LABEL },
  ];
  const budget = (selector: Record<string, string>): NamedPodDisruptionBudget => ({ metadata: { name: 'budget', namespace: 'default' }, spec: { selector: { matchLabels: selector } } });
  for (const { name, triggers: triggersOf, label } of cases) {
    test(`${name}: only the controlled pods labelled ${label}`, () => {
      const { pods, caches } = fakeCaches();
      const triggers = triggersOf(caches);
      assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'plain' }))), []);
      assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'plain', labels: { [label]: '1' } }))), ['default/plain']);
      assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'plain' }))), [], 'the label taken off again');
      assert.deepEqual(enqueuedBy(triggers, () => pods.put(pod({ name: 'free', controlled: false, labels: { [label]: '1' } }))), []);
      const marked = pod({ name: 'marked', labels: { [label]: '1' } });
      assert.deepEqual(enqueuedBy(triggers, () => pods.put(marked)), ['default/marked']);
      assert.deepEqual(enqueuedBy(triggers, () => pods.remove(marked)), ['default/marked']);
    });

    test(`${name}: a change of a PodDisruptionBudget brings back the marked pods it selects (it may have room now)`, () => {
      const { pods, podDisruptionBudgets, caches } = fakeCaches();
      pods.put(pod({ name: 'waiting', labels: { app: 'web', [label]: '1' } }));
      pods.put(pod({ name: 'serving', labels: { app: 'web' } }));
      pods.put(pod({ name: 'other', labels: { app: 'db', [label]: '1' } }));
      assert.deepEqual(enqueuedBy(triggersOf(caches), () => podDisruptionBudgets.put(budget({ app: 'web' }))), ['default/waiting']);
    });
  }

  test('pod-deletion: a change of a ReplicaSet or StatefulSet brings back its marked pods (a scale-up writes no pod)', () => {
    const { pods, replicaSets, statefulSets, caches } = fakeCaches();
    const ownedBy = (uid: string) => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid, controller: true }] });
    const withOwner = (name: string, uid: string, marked: boolean): Pod => {
      const p = pod({ name, labels: marked ? { [TO_DELETE_LABEL]: '1' } : {} });
      return { ...p, metadata: { ...p.metadata, ...ownedBy(uid) } };
    };
    pods.put(withOwner('rs-marked', 'rs-1', true));
    pods.put(withOwner('rs-serving', 'rs-1', false));
    pods.put(withOwner('sts-marked', 'sts-1', true));
    const triggers = podDeletionTriggers(caches);
    assert.deepEqual(enqueuedBy(triggers, () => replicaSets.put({ metadata: { name: 'rs', namespace: 'default', uid: 'rs-1' } })), ['default/rs-marked']);
    assert.deepEqual(enqueuedBy(triggers, () => statefulSets.put({ metadata: { name: 'sts', namespace: 'default', uid: 'sts-1' } })), ['default/sts-marked']);
  });
});

describe('rollout controller triggers', () => {
  const rolloutLifecycles = new FakeInformer<RolloutLifecycle>();
  const workloads = { Deployment: new FakeInformer<Workload>(), StatefulSet: new FakeInformer<Workload>(), DaemonSet: new FakeInformer<Workload>() };
  const jobs = new FakeInformer<Workload>();
  const replicaSets = new FakeInformer<Workload>();
  const triggers = rolloutTriggers({
    rolloutLifecycles: rolloutLifecycles.informer,
    workloads: { Deployment: workloads.Deployment.informer, StatefulSet: workloads.StatefulSet.informer, DaemonSet: workloads.DaemonSet.informer },
    jobs: jobs.informer,
    replicaSets: replicaSets.informer,
  });
  const labelled = (name: string, rolloutLifecycle?: string): Workload => ({
    metadata: { name, namespace: 'default', ...(rolloutLifecycle !== undefined && { labels: { [RL_WORKLOAD_LABEL]: rolloutLifecycle } }) },
  });

  test('every change of a RolloutLifecycle enqueues it', () => {
    const web: RolloutLifecycle = { metadata: { name: 'web', namespace: 'default' } };
    assert.deepEqual(enqueuedBy(triggers, () => rolloutLifecycles.put(web)), ['default/web']);
    assert.deepEqual(enqueuedBy(triggers, () => rolloutLifecycles.remove(web)), ['default/web']);
  });

  for (const kind of WORKLOAD_KINDS) {
    test(`a ${kind} enqueues the RolloutLifecycle its label names, now and before the change`, () => {
      const informer = workloads[kind];
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('app', 'web'))), ['default/web']);
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('app', 'web'))), ['default/web'], 'a change that keeps the label');
      // Moved to another RolloutLifecycle, then let go: the one it left must hear of it too.
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('app', 'api'))), ['default/api', 'default/web']);
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('app'))), ['default/api']);
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('app'))), []);
      assert.deepEqual(enqueuedBy(triggers, () => informer.remove(labelled('app'))), []);
    });
  }

  test('a hook Job or a ReplicaSet enqueues the RolloutLifecycle its label names', () => {
    for (const informer of [jobs, replicaSets]) {
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('web-pre', 'web'))), ['default/web']);
      assert.deepEqual(enqueuedBy(triggers, () => informer.remove(labelled('web-pre', 'web'))), ['default/web']);
      assert.deepEqual(enqueuedBy(triggers, () => informer.put(labelled('unrelated'))), []);
    }
  });
});
