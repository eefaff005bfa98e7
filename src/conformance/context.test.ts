// What a scenario's context records besides its steps: names unique to the run, a second namespace that shares
// the scenario's steps and findings, the known deviation of the step under way, and the labels of ended
// lifecycles left on a pod back in service, which do not fail the step.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import { SERVICE_AVAILABLE_LABEL, SERVICE_READY_GATE, SERVICE_READY_MESSAGE, idLabelKey } from '../api/protocol.ts';
import type { KubeClient } from '../kube/client.ts';
import { ScenarioContext } from './context.ts';
import { ORPHAN_POST_CHECKED, RULES_MATCHED_BY_POD_NAME } from './deviations.ts';

const inService = (name: string, labels: Record<string, string>): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { [SERVICE_AVAILABLE_LABEL]: '1', ...labels } },
  status: {
    conditions: [
      { type: SERVICE_READY_GATE, status: 'True', message: SERVICE_READY_MESSAGE },
      { type: 'Ready', status: 'True' },
    ],
  },
});

/** A context whose API answers GETs of pods from `pods` (by namespace/name), and makes namespaces `second-<n>`. */
function contextWith(pods: Map<string, Pod>, deadlineMs = 5000): ScenarioContext {
  const client = { get: async (_type: unknown, namespace: string, name: string) => structuredClone(pods.get(`${namespace}/${name}`)) } as unknown as KubeClient;
  let made = 0;
  return new ScenarioContext({
    client,
    namespace: 'podops-conformance-abcde',
    suffix: 'abcde',
    newNamespace: async () => `second-${++made}`,
    image: 'pause',
    deadline: performance.now() + deadlineMs,
    interrupt: new AbortController().signal,
    signal: new AbortController().signal,
  });
}

describe('ScenarioContext', () => {
  test('names carry the random part of the namespace, in a second namespace too', async () => {
    const ctx = contextWith(new Map());
    assert.equal(ctx.name('web'), 'web-abcde');
    const other = await ctx.otherNamespace('same-named pod');
    assert.equal(other.namespace, 'second-1');
    assert.equal(other.name('web'), 'web-abcde');
  });

  test('the known deviation of the step under way belongs to that step only', async () => {
    const ctx = contextWith(new Map());
    await ctx.step('detecting', async () => {}, { detects: RULES_MATCHED_BY_POD_NAME });
    assert.equal(ctx.currentStep, 'detecting');
    assert.equal(ctx.currentDeviation, RULES_MATCHED_BY_POD_NAME);
    await ctx.step('plain', async () => {});
    assert.equal(ctx.currentDeviation, undefined);
  });

  test('a pod back in service with labels of its ended lifecycles passes the step and records them, with the deviation that leaves them', async () => {
    const pods = new Map([
      ['podops-conformance-abcde/clean', inService('clean', { [idLabelKey('operating', 'other')]: '1' })],
      ['podops-conformance-abcde/orphan', inService('orphan', { [idLabelKey('post-checked', 'a')]: '7' })],
      ['second-1/both', inService('both', { [idLabelKey('post-checked', 'a')]: '7', [idLabelKey('completing', 'b')]: '8' })],
    ]);
    const ctx = contextWith(pods);
    const other = await ctx.otherNamespace('more');
    await ctx.step('ends', async () => {
      await ctx.backInService('clean', ['a']);
      await ctx.backInService('orphan', ['a', 'b']);
      // Recorded by the scenario, whichever of its namespaces the pod is in.
      await other.backInService('both', ['a', 'b']);
    });
    assert.deepEqual(ctx.leftovers, [
      { step: 'ends', pod: 'podops-conformance-abcde/orphan', labels: [`${idLabelKey('post-checked', 'a')}=7`], deviation: ORPHAN_POST_CHECKED },
      { step: 'ends', pod: 'second-1/both', labels: [`${idLabelKey('completing', 'b')}=8`, `${idLabelKey('post-checked', 'a')}=7`] },
    ]);
  });

  test('a pod that does not come back in service fails the step', async () => {
    const pod = inService('out', {});
    delete pod.metadata.labels![SERVICE_AVAILABLE_LABEL];
    const ctx = contextWith(new Map([['podops-conformance-abcde/out', pod]]), 150);
    await assert.rejects(ctx.backInService('out', ['a']), { name: 'StepFailure', message: /^timed out waiting for out back in service: podopslifecycle\.kusionstack\.io\/service-available is missing$/ });
    assert.deepEqual(ctx.leftovers, []);
  });
});
