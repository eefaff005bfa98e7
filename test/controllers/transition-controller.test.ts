// The PodTransitionRule controller against the sandbox API server (CRD installed), over HTTP only.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import type { Pod } from '../../src/api/kube.ts';
import { podTransitionRuleCRD, type PodTransitionRule } from '../../src/api/podtransitionrule.ts';
import { SERVICE_AVAILABLE_LABEL, TRANSITION_RULE_FINALIZER, transitionDetailAnnotation } from '../../src/api/protocol.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { Controller, keyOf } from '../../src/kube/controller.ts';
import { Informer } from '../../src/kube/informer.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, PODS } from '../../src/kube/resources.ts';
import { PODTRANSITIONRULES, TransitionReconciler, TransitionRuleChecker } from '../../src/controllers/transition-controller.ts';
import { PollManager } from '../../src/transition/webhook/poll-manager.ts';
import { L, pod } from '../support/pods.ts';

async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PodTransitionRule controller', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const stop = new AbortController();
  let rules: Informer<PodTransitionRule>;

  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, podTransitionRuleCRD() as never);
    await until(() => client.list(PODTRANSITIONRULES, { namespace: 'default' }).then(() => true, () => false), Boolean, 'the CRD served');
    const pods = new Informer<Pod>({ client, type: PODS, labelSelector: 'kusionstack.io/control=true' });
    rules = new Informer<PodTransitionRule>({ client, type: PODTRANSITIONRULES });
    const controller: Controller = new Controller({
      name: 'ptr',
      reconciler: new TransitionReconciler({ client, rules, pods, polls: new PollManager({ onPolled: (t) => controller.enqueue(keyOf(t.namespace, t.name)) }) }),
    });
    const enqueueAll = (): void => {
      for (const rule of rules.list()) controller.enqueue(keyOf(rule.metadata.namespace, rule.metadata.name ?? ''));
    };
    pods.addHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
    rules.addHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
    void pods.run(stop.signal);
    void rules.run(stop.signal);
    void controller.run(stop.signal);
  });
  after(async () => {
    stop.abort();
    client.close();
    await sandbox.stop();
  });

  const inPreCheck = (name: string, available: boolean) =>
    pod({ name, labels: { app: 'web', [L('operating', 'u')]: '1', [L('operation-type', 'u')]: 'update', [L('pre-check', 'u')]: '1', ...(available && { [SERVICE_AVAILABLE_LABEL]: '1' }) } });
  const getRule = () => client.get<PodTransitionRule>(PODTRANSITIONRULES, 'default', 'budget');

  test('maxUnavailable 50% of 4 with 2 unavailable: the 2 unavailable pass, the others are blocked; annotations and finalizer follow', async () => {
    for (const [name, available] of [['web-a', false], ['web-b', false], ['web-c', true], ['web-d', true]] as const) await client.create(PODS, inPreCheck(name, available));
    await client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'budget', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'half', availablePolicy: { maxUnavailableValue: '50%' } }] },
    });
    const rule = await until(getRule, (r) => (r.status?.details?.length ?? 0) === 4, 'details for 4 pods');
    assert.deepEqual(rule.status?.targets, ['web-a', 'web-b', 'web-c', 'web-d']);
    assert.deepEqual(rule.status?.details?.map((d) => [d.name, d.stage, d.passed]), [
      ['web-a', 'PreCheck', true],
      ['web-b', 'PreCheck', true],
      ['web-c', 'PreCheck', false],
      ['web-d', 'PreCheck', false],
    ]);
    assert.match(rule.status?.details?.[2]?.rejectInfo?.[0]?.reason ?? '', /^\[half\] blocked by max unavailable policy: \[max unavailable\]=2\/4, \[current unavailable\]=2\/4$/);
    assert.ok(rule.metadata.finalizers?.includes(TRANSITION_RULE_FINALIZER));

    const annotated = await until(() => client.get<Pod>(PODS, 'default', 'web-c'), (p) => p.metadata.annotations?.[transitionDetailAnnotation('budget')] !== undefined, 'the detail annotation');
    assert.deepEqual(JSON.parse(annotated.metadata.annotations?.[transitionDetailAnnotation('budget')] ?? ''), {
      stage: 'PreCheck',
      passed: false,
      rejectInfo: [{ ruleName: 'half', reason: '[half] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=2/4' }],
    });

    await until(() => rules.get('default', 'budget'), (r) => (r?.status?.details?.length ?? 0) === 4, 'the cache');
    const checker = new TransitionRuleChecker(rules);
    assert.equal(checker.verdict(annotated, 'PreCheck').passed, false);
    assert.equal(checker.verdict(await client.get<Pod>(PODS, 'default', 'web-a'), 'PreCheck').passed, true);

    // A third pod becomes unavailable: the budget is spent on it, and the rest stay blocked.
    await client.patch(PODS, 'default', 'web-c', 'merge', { metadata: { labels: { [SERVICE_AVAILABLE_LABEL]: null } } });
    const after3 = await until(getRule, (r) => r.status?.details?.find((d) => d.name === 'web-c')?.passed === true, 'web-c to pass once unavailable');
    assert.equal(after3.status?.details?.find((d) => d.name === 'web-d')?.passed, false);

    await client.delete(PODTRANSITIONRULES, 'default', 'budget');
    await until(() => client.get(PODTRANSITIONRULES, 'default', 'budget').then(() => false, () => true), Boolean, 'the rule to be gone');
    const cleaned = await client.get<Pod>(PODS, 'default', 'web-c');
    assert.equal(cleaned.metadata.annotations?.[transitionDetailAnnotation('budget')], undefined);
  });
});
