// The PodTransitionRule controller against the sandbox API server (CRD installed), over HTTP only, with the
// operator's 5 workers, a real event recorder, and rule servers on 127.0.0.1.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import type { Pod } from '../../src/api/kube.ts';
import { podTransitionRuleCRD, type PodTransitionRule, type TransitionRule } from '../../src/api/podtransitionrule.ts';
import { SERVICE_AVAILABLE_LABEL, TRANSITION_RULE_FINALIZER, transitionDetailAnnotation } from '../../src/api/protocol.ts';
import { KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { Controller, keyOf, type Result } from '../../src/kube/controller.ts';
import { EventRecorder } from '../../src/kube/events.ts';
import { Informer } from '../../src/kube/informer.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, EVENTS, PODS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { TransitionReconciler, TransitionRuleChecker, transitionTriggers } from '../../src/controllers/transition-controller.ts';
import { CallManager } from '../../src/transition/webhook/call-manager.ts';
import { PollManager } from '../../src/transition/webhook/poll-manager.ts';
import { closedPort, json, startRuleServer, type Handler, type RuleServer } from '../../src/transition/webhook/rule-server.test-support.ts';
import { L, pod } from '../support/pods.ts';
import { until } from '../support/wait.ts';

type EventObject = KubeObject & { type: string; reason: string; message: string; involvedObject: { kind?: string; name?: string; namespace?: string; uid?: string } };

describe('PodTransitionRule controller', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const stop = new AbortController();
  let rules: Informer<PodTransitionRule>;
  let calls: CallManager;
  let polls: PollManager;
  /** Every reconcile's result, by PodTransitionRule key. */
  const results: { key: string; at: number; result: Result | void }[] = [];
  const servers: RuleServer[] = [];

  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
    await client.create(CUSTOM_RESOURCE_DEFINITIONS, podTransitionRuleCRD() as never);
    await until(() => client.list(PODTRANSITIONRULES, { namespace: 'default' }).then(() => true, () => false), Boolean, 'the CRD served');
    const pods = new Informer<Pod>({ client, type: PODS, labelSelector: 'kusionstack.io/control=true' });
    rules = new Informer<PodTransitionRule>({ client, type: PODTRANSITIONRULES });
    const requeue = (owner: { namespace: string; name: string }): void => controller.enqueue(keyOf(owner.namespace, owner.name));
    polls = new PollManager({ onPolled: requeue });
    calls = new CallManager({ onAnswered: requeue });
    const reconciler = new TransitionReconciler({ client, rules, pods, polls, calls, events: new EventRecorder({ client, component: 'podops' }) });
    // As the operator runs it: 5 workers and its triggers.
    const controller: Controller = new Controller({
      name: 'ptr',
      workers: 5,
      triggers: transitionTriggers(rules, pods),
      reconciler: {
        async reconcile(request, signal) {
          const result = await reconciler.reconcile(request, signal);
          results.push({ key: keyOf(request.namespace, request.name), at: Date.now(), result });
          return result;
        },
      },
    });
    void pods.run(stop.signal);
    void rules.run(stop.signal);
    void controller.run(stop.signal);
  });
  after(async () => {
    stop.abort();
    calls.stop();
    polls.stop();
    await Promise.all(servers.map((s) => s.close()));
    client.close();
    await sandbox.stop();
  });

  const serve = async (handler: Handler): Promise<RuleServer> => {
    const server = await startRuleServer(handler);
    servers.push(server);
    return server;
  };
  const inPreCheck = (name: string, available: boolean, app = 'web') =>
    pod({ name, labels: { app, [L('operating', 'u')]: '1', [L('operation-type', 'u')]: 'update', [L('pre-check', 'u')]: '1', ...(available && { [SERVICE_AVAILABLE_LABEL]: '1' }) } });
  const createRule = (name: string, app: string, ruleList: TransitionRule[]) =>
    client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name, namespace: 'default' },
      spec: { selector: { matchLabels: { app } }, rules: ruleList },
    });
  const getRule = (name = 'budget') => client.get<PodTransitionRule>(PODTRANSITIONRULES, 'default', name);
  const getPod = (name: string) => client.get<Pod>(PODS, 'default', name);
  const eventsAbout = async (kind: string, name: string): Promise<EventObject[]> =>
    (await client.list<EventObject>(EVENTS, { namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items.filter((e) => e.involvedObject.kind === kind);
  const eventOf = (kind: string, name: string, reason: string) =>
    until(() => eventsAbout(kind, name), (events) => events.some((e) => e.reason === reason), `a ${reason} event on ${kind} ${name}`).then((events) => events.find((e) => e.reason === reason) as EventObject);

  test('maxUnavailable 50% of 4 with 2 unavailable: the 2 unavailable pass, the others are blocked; annotations, events and finalizer follow', async () => {
    for (const [name, available] of [['web-a', false], ['web-b', false], ['web-c', true], ['web-d', true]] as const) await client.create(PODS, inPreCheck(name, available));
    await createRule('budget', 'web', [{ name: 'half', availablePolicy: { maxUnavailableValue: '50%' } }]);
    const rule = await until(getRule, (r) => (r.status?.details?.length ?? 0) === 4, 'details for 4 pods');
    assert.deepEqual(rule.status?.targets, ['web-a', 'web-b', 'web-c', 'web-d']);
    assert.deepEqual(rule.status?.details?.map((d) => [d.name, d.stage, d.passed]), [
      ['web-a', 'PreCheck', true],
      ['web-b', 'PreCheck', true],
      ['web-c', 'PreCheck', false],
      ['web-d', 'PreCheck', false],
    ]);
    const blocked = '[half] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=2/4';
    assert.equal(rule.status?.details?.[2]?.rejectInfo?.[0]?.reason, blocked);
    assert.ok(rule.metadata.finalizers?.includes(TRANSITION_RULE_FINALIZER));

    const annotated = await until(() => getPod('web-c'), (p) => p.metadata.annotations?.[transitionDetailAnnotation('budget')] !== undefined, 'the detail annotation');
    assert.deepEqual(JSON.parse(annotated.metadata.annotations?.[transitionDetailAnnotation('budget')] ?? ''), {
      stage: 'PreCheck',
      passed: false,
      rejectInfo: [{ ruleName: 'half', reason: blocked }],
    });

    // Each pod's verdict is an event on the pod.
    const rejected = await eventOf('Pod', 'web-c', 'TransitionRejected');
    assert.equal(rejected.type, 'Warning');
    assert.equal(rejected.message, `PodTransitionRule budget rejected stage PreCheck: half: ${blocked}`);
    assert.equal(rejected.involvedObject.uid, annotated.metadata.uid);
    const approved = await eventOf('Pod', 'web-a', 'TransitionPassed');
    assert.equal(approved.type, 'Normal');
    assert.equal(approved.message, 'PodTransitionRule budget passed stage PreCheck');
    assert.deepEqual((await eventsAbout('Pod', 'web-a')).map((e) => e.reason), ['TransitionPassed']);

    await until(() => rules.get('default', 'budget'), (r) => (r?.status?.details?.length ?? 0) === 4, 'the cache');
    const checker = new TransitionRuleChecker(rules);
    assert.equal(checker.verdict(annotated, 'PreCheck').passed, false);
    assert.equal(checker.verdict(await getPod('web-a'), 'PreCheck').passed, true);

    // A third pod becomes unavailable: the budget is spent on it, and the rest stay blocked.
    await client.patch(PODS, 'default', 'web-c', 'merge', { metadata: { labels: { [SERVICE_AVAILABLE_LABEL]: null } } });
    const after3 = await until(getRule, (r) => r.status?.details?.find((d) => d.name === 'web-c')?.passed === true, 'web-c to pass once unavailable');
    assert.equal(after3.status?.details?.find((d) => d.name === 'web-d')?.passed, false);
    await eventOf('Pod', 'web-c', 'TransitionPassed');

    await client.delete(PODTRANSITIONRULES, 'default', 'budget');
    await until(() => client.get(PODTRANSITIONRULES, 'default', 'budget').then(() => false, () => true), Boolean, 'the rule to be gone');
    const cleaned = await getPod('web-c');
    assert.equal(cleaned.metadata.annotations?.[transitionDetailAnnotation('budget')], undefined);
  });

  test('failurePolicy Ignore: a refused webhook call lets the pod pass and records WebhookFailureIgnored on the rule', async () => {
    const port = await closedPort();
    await client.create(PODS, inPreCheck('lax-a', true, 'lax'));
    await createRule('lax', 'lax', [{ name: 'w', webhook: { clientConfig: { url: `http://127.0.0.1:${port}` }, failurePolicy: 'Ignore' } }]);
    await until(() => getRule('lax'), (r) => r.status?.details?.[0]?.passed === true, 'the pod to pass');
    const ignored = await eventOf('PodTransitionRule', 'lax', 'WebhookFailureIgnored');
    assert.equal(ignored.type, 'Warning');
    assert.equal(ignored.message, `rule w: connect ECONNREFUSED 127.0.0.1:${port} (failurePolicy Ignore; pods passed: lax-a)`);
    assert.equal(ignored.involvedObject.uid, (await getRule('lax')).metadata.uid);
  });

  test('a deleted pod leaves status.targets and its detail', async () => {
    for (const name of ['gone-a', 'gone-b']) await client.create(PODS, inPreCheck(name, true, 'gone'));
    await createRule('gone', 'gone', [{ name: 'any', availablePolicy: { maxUnavailableValue: '100%' } }]);
    await until(() => getRule('gone'), (r) => r.status?.details?.length === 2, 'details for both pods');
    await client.delete(PODS, 'default', 'gone-b');
    const rule = await until(() => getRule('gone'), (r) => r.status?.targets?.length === 1, 'gone-b to leave the targets');
    assert.deepEqual(rule.status?.targets, ['gone-a']);
    assert.deepEqual(rule.status?.details?.map((d) => d.name), ['gone-a']);
  });

  test('a pod that stops matching the selector loses its detail annotation; the others keep theirs', async () => {
    const annotation = transitionDetailAnnotation('moves');
    for (const name of ['move-a', 'move-b']) await client.create(PODS, inPreCheck(name, true, 'moves'));
    await createRule('moves', 'moves', [{ name: 'any', availablePolicy: { maxUnavailableValue: '100%' } }]);
    await until(() => getPod('move-b'), (p) => p.metadata.annotations?.[annotation] !== undefined, 'the annotation on move-b');
    await client.patch(PODS, 'default', 'move-b', 'merge', { metadata: { labels: { app: 'elsewhere' } } });
    await until(() => getPod('move-b'), (p) => p.metadata.annotations?.[annotation] === undefined, 'the annotation to go');
    assert.deepEqual((await getRule('moves')).status?.targets, ['move-a']);
    assert.notEqual((await getPod('move-a')).metadata.annotations?.[annotation], undefined);
  });

  test('a rejecting webhook: the reconcile result asks to come back in 5 s, and the pod is asked again only then', async () => {
    // Times are taken where they happen (the rule server's answers, each reconcile's return), so a stalled
    // machine delays the assertions but cannot fail them.
    const answeredAt: number[] = [];
    const server = await serve((_req, res) => {
      answeredAt.push(Date.now());
      json(res, { success: false, message: 'not yet' });
    });
    await client.create(PODS, inPreCheck('retry-a', true, 'retry'));
    await createRule('retry', 'retry', [{ name: 'w', webhook: { clientConfig: { url: server.url } } }]);
    const rule = await until(() => getRule('retry'), (r) => /rejected/.test(r.status?.details?.[0]?.rejectInfo?.[0]?.reason ?? ''), 'the rejection');
    assert.match(rule.status?.details?.[0]?.rejectInfo?.[0]?.reason ?? '', /^Webhook check default\/retry\/w rejected, traceId [0-9a-f-]{36}, taskId , msg: not yet$/);
    // A reconcile after the answer asks to come back when the 5 s since the answer are up, never later.
    const comeBack = () => results.filter((r) => r.key === 'default/retry' && r.result?.requeueAfterMs !== undefined);
    await until(comeBack, (all) => all.some((r) => r.result!.requeueAfterMs! <= 5000 && r.at + r.result!.requeueAfterMs! >= answeredAt[0]! + 4900), 'a requeueAfter aimed at 5 s after the answer');
    await until(() => answeredAt.length, (n) => n >= 2, 'the second request', 10_000);
    assert.ok(answeredAt[1]! - answeredAt[0]! >= 4900, `the second request came ${answeredAt[1]! - answeredAt[0]!} ms after the first answer, not before the 5 s were up`);
    await client.delete(PODTRANSITIONRULES, 'default', 'retry');
  });

  test('hanging rule servers on more rules than workers do not starve a healthy rule', async () => {
    const hanging = await serve(() => undefined);
    const healthy = await serve((_req, res) => json(res, { success: true }));
    await client.create(PODS, inPreCheck('stuck-a', true, 'stuck'));
    await client.create(PODS, inPreCheck('fine-a', true, 'fine'));
    for (let i = 0; i < 7; i++) await createRule(`stuck-${i}`, 'stuck', [{ name: 'w', webhook: { clientConfig: { url: hanging.url } } }]);
    await until(() => hanging.requests.length, (n) => n === 7, 'a request from each hanging rule');
    const started = Date.now();
    await createRule('fine', 'fine', [{ name: 'w', webhook: { clientConfig: { url: healthy.url } } }]);
    await until(() => getRule('fine'), (r) => r.status?.details?.[0]?.passed === true, 'the healthy rule to pass its pod', 3000);
    assert.ok(Date.now() - started < 3000);
    // Waiting for the answer is no verdict: the pod's only event is its pass.
    await eventOf('Pod', 'fine-a', 'TransitionPassed');
    assert.deepEqual((await eventsAbout('Pod', 'fine-a')).map((e) => e.reason), ['TransitionPassed']);
    // The hanging rules are evaluated too: their pod waits for the answer, named by the request's trace ID.
    const stuck = await until(() => getRule('stuck-0'), (r) => r.status?.details !== undefined, 'the status of a hanging rule', 3000);
    assert.match(stuck.status?.details?.[0]?.rejectInfo?.[0]?.reason ?? '', /^Waiting for webhook default\/stuck-0\/w response, traceId [0-9a-f-]{36}$/);
    assert.equal(hanging.requests.length, 7, 'one request per rule while it hangs');
  });
});
