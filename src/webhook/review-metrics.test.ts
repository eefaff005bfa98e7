// podops_admission_review_duration_seconds: every AdmissionReview answered is timed under its kind, operation
// and verdict, so a dashboard can tell slow denials from slow patches; a kind the webhook does not serve is
// `other` (anyone can send a review of any kind).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { allowed, denied } from './admission.ts';
import { genericRoute } from './dispatch.ts';
import { reviewBody } from '../../test/support/admission-review.ts';
import { PROTOTYPE_KEYS } from '../../test/support/hostile-http.ts';
import { useWebhookServer } from '../../test/support/webhook-server.ts';

const review = (operation: string, subResource?: string): string =>
  reviewBody({ uid: 'u1', ...(subResource && { subResource }), name: 'web-0', operation, object: { metadata: { name: 'web-0' } } });

describe('admission review metrics', () => {
  const registry = new Registry();
  const webhook = useWebhookServer(() => ({
    registry,
    routes: [
      genericRoute('/hooks', {
        Pod: [(r) => (r.operation === 'CREATE' ? allowed([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]) : r.operation === 'DELETE' ? denied('no') : allowed())],
        'Pod/status': [() => { throw new Error('handler broke'); }],
      }),
    ],
  }));

  test('each answer is counted under its kind, operation and verdict', async () => {
    for (const [operation, subResource] of [['CREATE'], ['UPDATE'], ['DELETE'], ['DELETE'], ['UPDATE', 'status']] as const) {
      await webhook.send('/hooks', review(operation, subResource));
    }
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'podops_admission_review_duration_seconds');
    const counts = (metric?.values ?? [])
      .filter((v) => (v as { metricName?: string }).metricName === 'podops_admission_review_duration_seconds_count')
      .map((v) => `${v.labels.kind} ${v.labels.operation} ${v.labels.verdict}=${v.value}`)
      .sort();
    assert.deepEqual(counts, ['Pod CREATE patched=1', 'Pod DELETE denied=2', 'Pod UPDATE allowed=1', 'Pod/status UPDATE error=1']);
  });

  test('a kind the route does not serve is counted as other, whatever its text: the labels stay a fixed set', async () => {
    const kinds = [...PROTOTYPE_KEYS, ...Array.from({ length: 50 }, (_, i) => `Forged${i}${'x'.repeat(200)}`)];
    for (const kind of kinds) {
      const answer = await webhook.send('/hooks', reviewBody({ uid: 'u2', kind: { group: '', version: 'v1', kind }, operation: 'CREATE', object: {} }));
      assert.equal(JSON.parse(answer.text).response.allowed, true, `${kind} is answered as a kind nobody handles`);
    }
    await webhook.send('/hooks', review('UPDATE', '__proto__'));
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'podops_admission_review_duration_seconds');
    assert.deepEqual(new Set(metric?.values.map((v) => v.labels.kind)), new Set(['Pod', 'Pod/status', 'other']));
  });
});
