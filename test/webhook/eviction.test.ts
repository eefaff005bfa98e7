// The eviction webhook behind podops' webhook configurations on the sandbox API server: an eviction of a
// controlled pod on a node being emptied is answered 429 (drain tools retry) and marks the pod to-evict; a dry
// run marks nothing; any other pod is evicted as the API server evicts it; once the pod's eviction lifecycle
// allows, the retry passes. Without an authenticated API server, an eviction from a node that nobody empties
// (which a forged review may claim) is let through with a warning and nothing is written, and while the deferral
// of a pod's evictions is paused (its last lifecycle allowed an eviction that did not come) nothing is marked.
// The webhook decides on the operator's shared caches; the node is read live when the cache shows it schedulable.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Node, Pod } from '../../src/api/kube.ts';
import type { ClusterCaches } from '../../src/cache/cluster-cache.ts';
import {
  EVICTION_NOT_DEFERRED_WARNING,
  EVICTION_PAUSED_UNTIL_ANNOTATION,
  EVICTION_REQUESTED_ANNOTATION,
  POD_EVICTION_LIFECYCLE_ID,
  TO_EVICT_LABEL,
  TRANSITION_DETAIL_ANNOTATION_PREFIX,
  idLabelKey,
} from '../../src/api/protocol.ts';
import { ApiError, KubeClient } from '../../src/kube/client.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { NODES, PODS } from '../../src/kube/resources.ts';
import { admitEviction, evictionProgress } from '../../src/webhook/eviction.ts';
import { validatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { L, PERM, STAMP, pod } from '../support/pods.ts';
import { usePodWebhooks } from '../support/pod-webhooks.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { useClusterCaches } from '../support/cluster-caches.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { waitFor } from '../support/wait.ts';

describe('graceful evictions: the webhook', () => {
  const env = useSandboxClient();
  const running = useClusterCaches(env);
  /** Pods on this node are trusted only when the API server is authenticated (a test flips it). */
  let apiServerAuthenticated = false;
  /** The node cache the webhook reads (a test gives it a stale one). */
  let nodes: (() => ClusterCaches['nodes']) | undefined;
  usePodWebhooks(env, () => ({
    Pod: [validatePodLifecycle],
    'Eviction/eviction': [(r) => admitEviction(r, { client: env.client, caches: { ...running.caches, nodes: nodes?.() ?? running.caches.nodes }, now: nowNanos, apiServerAuthenticated })],
  }));
  before(async () => {
    const node = (name: string, spec: object) => env.client.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });
    await node('cordoned', { unschedulable: true });
    await node('autoscaled-away', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', value: '1700000000', effect: 'NoSchedule' }] });
    await node('serving', { taints: [{ key: 'DeletionCandidateOfClusterAutoscaler', value: '1700000000', effect: 'PreferNoSchedule' }] });
  });

  /** The webhook decides on the operator's cache: a test's own write is waited for there. */
  const cached = async (name: string, holds: (pod: Pod) => boolean = () => true): Promise<void> => {
    await waitFor(() => {
      const found = running.caches.pods.get('default', name);
      return found !== undefined && holds(found);
    }, `${name} in the cache`);
  };
  const create = async (name: string, controlled = true, nodeName = 'cordoned', annotations: Record<string, string> = {}): Promise<Pod> => {
    const { status: _status, ...created } = pod({ name, gate: false, controlled });
    const stored = await env.client.create<Pod>(PODS, { ...created, metadata: { ...created.metadata, annotations }, spec: { ...created.spec, nodeName } });
    if (controlled) await cached(name);
    return stored;
  };
  const live = (name: string) => env.client.get<Pod>(PODS, 'default', name);
  /** Evicted: the pod is bound to a node, so the API server deletes it gracefully and no kubelet here ends it. */
  const assertEvicted = async (name: string): Promise<void> => assert.notEqual((await live(name)).metadata.deletionTimestamp, undefined, `${name} is terminating`);
  const refusal = async (name: string, dryRun = false): Promise<ApiError> => {
    try {
      await env.client.evict('default', name, dryRun ? { dryRun: true } : {});
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    throw new Error(`the eviction of ${name} went through`);
  };

  test('a controlled pod: 429 with what its eviction waits for, and the pod is marked; a dry run marks nothing', async () => {
    await create('drained');
    const dry = await refusal('drained', true);
    assert.equal(dry.code, 429);
    assert.equal((await live('drained')).metadata.labels?.[TO_EVICT_LABEL], undefined, 'a dry run writes nothing');

    const refused = await refusal('drained');
    assert.equal(refused.code, 429);
    assert.equal(refused.status?.reason, 'TooManyRequests');
    assert.match(refused.message, /admission webhook "validating-pod-eviction\.apps\.kusionstack\.io" denied the request: Cannot evict pod yet: podops takes it out of service first: lifecycle pod-eviction not begun yet/);
    const marked = await live('drained');
    assert.match(marked.metadata.labels?.[TO_EVICT_LABEL] ?? '', /^\d+$/);
    assert.equal(marked.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION], marked.metadata.labels?.[TO_EVICT_LABEL]);
    assert.equal(marked.metadata.deletionTimestamp, undefined);
  });

  test('a node tainted for removal vouches for an eviction as a cordon does', async () => {
    await create('autoscaled', true, 'autoscaled-away');
    assert.equal((await refusal('autoscaled')).code, 429);
    assert.match((await live('autoscaled')).metadata.labels?.[TO_EVICT_LABEL] ?? '', /^\d+$/);
  });

  test('a node nobody empties: without an authenticated API server the eviction goes through with a warning, nothing written', async () => {
    const warnings: string[] = [];
    const client = KubeClient.fromKubeconfigText(env.sandbox.kubeconfig, { onWarning: (warning) => warnings.push(warning) });
    try {
      await create('unvouched', true, 'serving');
      await client.evict('default', 'unvouched', { dryRun: true });
      assert.equal((await live('unvouched')).metadata.labels?.[TO_EVICT_LABEL], undefined, 'nothing is written');
      await client.evict('default', 'unvouched');
      await assertEvicted('unvouched');
      assert.equal(warnings.length, 2);
      for (const warning of warnings) assert.match(warning, new RegExp(`^${EVICTION_NOT_DEFERRED_WARNING}: the pod's node is neither cordoned nor tainted for removal`));
    } finally {
      client.close();
    }
  });

  test('an authenticated API server vouches for every eviction, whatever the node', async () => {
    apiServerAuthenticated = true;
    try {
      await create('authenticated', true, 'serving');
      assert.equal((await refusal('authenticated')).code, 429);
      assert.match((await live('authenticated')).metadata.labels?.[TO_EVICT_LABEL] ?? '', /^\d+$/);
    } finally {
      apiServerAuthenticated = false;
    }
  });

  test('a pod that is not controlled is evicted as the API server evicts it', async () => {
    await create('plain', false);
    await env.client.evict('default', 'plain');
    await assertEvicted('plain');
  });

  test('once the eviction lifecycle allows the operation, the retry goes through', async () => {
    await create('ready-to-go');
    await refusal('ready-to-go');
    // The lifecycle as the controllers leave it once the pod is out of traffic and its checks passed.
    const now = nowNanos().toString();
    const labels = (await live('ready-to-go')).metadata.labels ?? {};
    await env.client.patch(PODS, 'default', 'ready-to-go', 'merge', {
      metadata: {
        labels: {
          ...labels,
          [idLabelKey('operating', POD_EVICTION_LIFECYCLE_ID)]: now,
          [idLabelKey('operation-type', POD_EVICTION_LIFECYCLE_ID)]: 'evict',
          [idLabelKey('pre-checked', POD_EVICTION_LIFECYCLE_ID)]: now,
          'operation-permission.podopslifecycle.kusionstack.io/evict': now,
        },
      },
    });
    await env.client.patch(PODS, 'default', 'ready-to-go', 'merge', { metadata: { labels: { [idLabelKey('operate', POD_EVICTION_LIFECYCLE_ID)]: now } } });
    const allowedNow = await live('ready-to-go');
    if (allowedNow.metadata.labels?.[idLabelKey('operate', POD_EVICTION_LIFECYCLE_ID)] === undefined) assert.fail(`the lifecycle did not reach operate: ${JSON.stringify(allowedNow.metadata.labels)}`);
    await cached('ready-to-go', (p) => p.metadata.labels?.[idLabelKey('operate', POD_EVICTION_LIFECYCLE_ID)] !== undefined);
    await env.client.evict('default', 'ready-to-go');
    await assertEvicted('ready-to-go');
  });

  test('a node the cache shows schedulable is read again live: a drain evicts right after it cordons', async () => {
    await env.client.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'just-cordoned' }, spec: { unschedulable: true } });
    // The cache has not seen the cordon yet: its copy of the node is schedulable.
    const stale = new FakeInformer<Node>();
    stale.put({ metadata: { name: 'just-cordoned' }, spec: {} });
    nodes = () => stale.informer;
    try {
      await create('behind-the-cache', true, 'just-cordoned');
      assert.equal((await refusal('behind-the-cache')).code, 429);
      assert.match((await live('behind-the-cache')).metadata.labels?.[TO_EVICT_LABEL] ?? '', /^\d+$/);
    } finally {
      nodes = undefined;
    }
  });

  test('while the deferral of its evictions is paused, an eviction nothing but the node vouches for is refused and marks nothing', async () => {
    const pausedUntil = (nowNanos() + 60n * 1_000_000_000n).toString();
    await create('paused', true, 'cordoned', { [EVICTION_PAUSED_UNTIL_ANNOTATION]: pausedUntil });
    const refused = await refusal('paused');
    assert.equal(refused.code, 429);
    assert.match(refused.message, /Cannot evict pod yet: podops takes it out of service first: its last eviction lifecycle allowed an eviction that did not come, so podops pauses deferring its evictions for (59|60) s/);
    assert.equal((await live('paused')).metadata.labels?.[TO_EVICT_LABEL], undefined, 'nothing is marked');
    apiServerAuthenticated = true;
    try {
      assert.equal((await refusal('paused')).code, 429);
      assert.match((await live('paused')).metadata.labels?.[TO_EVICT_LABEL] ?? '', /^\d+$/, 'an authenticated API server vouches for the request: the lifecycle begins');
    } finally {
      apiServerAuthenticated = false;
    }
  });
});

describe('graceful evictions: what the refusal says', () => {
  const evicting = (labels: Record<string, string>, annotations: Record<string, string> = {}) =>
    pod({ name: 'web-1', serviceReady: 'True', ready: true, labels: { [L('operating', POD_EVICTION_LIFECYCLE_ID)]: STAMP, [L('operation-type', POD_EVICTION_LIFECYCLE_ID)]: 'evict', ...labels }, annotations });

  test("each of the lifecycle's waits follows its phase as it reads: blocked by a rule, waiting for the operation", () => {
    const rejected = JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'one-at-a-time', reason: 'too many out' }] });
    assert.equal(
      evictionProgress(evicting({ [L('pre-check', POD_EVICTION_LIFECYCLE_ID)]: STAMP }, { [`${TRANSITION_DETAIL_ANNOTATION_PREFIX}/budget`]: rejected })),
      'lifecycle pod-eviction in PreCheck, blocked by PodTransitionRule budget: one-at-a-time: too many out',
    );
    assert.equal(
      evictionProgress(evicting({ [L('pre-checked', POD_EVICTION_LIFECYCLE_ID)]: STAMP, [PERM('evict')]: STAMP, [L('operate', POD_EVICTION_LIFECYCLE_ID)]: STAMP })),
      'lifecycle pod-eviction in Operating, waiting for the operation controller to operate and finish (evict)',
    );
    assert.equal(evictionProgress(pod({ name: 'web-2' })), 'lifecycle pod-eviction not begun yet (it begins once every PodDisruptionBudget of the pod, if it has any, has room for it)');
  });
});
