// The eviction webhook behind podops' webhook configurations on the sandbox API server: an eviction of a
// controlled pod is answered 429 (drain tools retry) and marks the pod to-evict; a dry run marks nothing; any
// other pod is evicted as the API server evicts it; once the pod's eviction lifecycle allows, the retry passes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { EVICTION_REQUESTED_ANNOTATION, POD_EVICTION_LIFECYCLE_ID, TO_EVICT_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import { ApiError } from '../../src/kube/client.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { PODS } from '../../src/kube/resources.ts';
import { admitEviction } from '../../src/webhook/eviction.ts';
import { validatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { pod } from '../support/pods.ts';
import { usePodWebhooks } from '../support/pod-webhooks.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

describe('graceful evictions: the webhook', () => {
  const env = useSandboxClient();
  usePodWebhooks(env, () => ({ Pod: [validatePodLifecycle], 'Eviction/eviction': [(r) => admitEviction(r, { client: env.client, now: nowNanos })] }));

  const create = async (name: string, controlled = true): Promise<Pod> => {
    const { status: _status, ...created } = pod({ name, gate: false, controlled });
    return env.client.create<Pod>(PODS, created);
  };
  const live = (name: string) => env.client.get<Pod>(PODS, 'default', name);
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

  test('a pod that is not controlled is evicted as the API server evicts it', async () => {
    await create('plain', false);
    await env.client.evict('default', 'plain');
    await assert.rejects(live('plain'), (err: ApiError) => err.code === 404);
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
    await env.client.evict('default', 'ready-to-go');
    await assert.rejects(live('ready-to-go'), (err: ApiError) => err.code === 404);
  });
});
